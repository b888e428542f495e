export { DEFAULT_CONFIG_FILES } from './config/datastore-config.js';
export { runCtl } from './cli/run-ctl.js';
export { readTextFile, readTextStream } from './cli/read-bounded.js';
