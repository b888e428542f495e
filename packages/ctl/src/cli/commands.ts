import type { CommandSpec } from './command-spec.js';
import { CHECK_COMMANDS } from './commands-check.js';
import { IPAM_BASIC_COMMANDS } from './commands-ipam.js';
import { REPAIR_COMMANDS } from './commands-repair.js';
import { RESOURCE_COMMANDS } from './commands-resources.js';
import { VERSION_COMMANDS } from './commands-version.js';

/** Every netledgerctl command. */
export const COMMANDS: readonly CommandSpec[] = [
  ...IPAM_BASIC_COMMANDS,
  ...CHECK_COMMANDS,
  ...RESOURCE_COMMANDS,
  ...REPAIR_COMMANDS,
  ...VERSION_COMMANDS,
];
