// A scan of TypeScript source for external commands run through a shell (STYLE.md: external
// processes are run with an argument array, never a shell string). Used by no-shell.test.ts.

/** One place a source runs, or may run, a command through a shell. */
export interface ShellUse {
  readonly line: number;
  readonly what: string;
}

const CHILD_PROCESS = String.raw`['"](?:node:)?child_process['"]`;
const NAMED_IMPORT = new RegExp(String.raw`import\s*\{([^}]*)\}\s*from\s*${CHILD_PROCESS}`, 'g');
const NAMESPACE_IMPORT = new RegExp(
  String.raw`import\s*\*\s*as\s+(\w+)\s+from\s*${CHILD_PROCESS}`,
  'g',
);
const SHELL_OPTION = /\bshell\s*:\s*(?!false\b)([^,}\s]+)/g;
const SHELL_BINARY =
  /\b(?:spawn|spawnSync|execFile|execFileSync)\s*\(\s*['"`](?:\/(?:usr\/)?bin\/)?(?:sh|bash|dash|zsh|ash)['"`]/g;
/** `childProcess().exec(`, `cp.execSync(`: the module's shell-string functions called on it. */
const MODULE_EXEC = /\b(?:childProcess\(\)|child_process|childProcess|cp)\.(?:exec|execSync)\s*\(/g;

/** Blanks out comments (keeping line breaks) so that prose about shells is not flagged. */
function stripComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

/** Every use of a shell in `text` (a TypeScript source); an empty list when there is none. */
export function findShellUses(text: string): ShellUse[] {
  const code = stripComments(text);
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const uses: ShellUse[] = [];
  const add = (index: number, what: string) => uses.push({ line: lineOf(index), what });
  for (const m of code.matchAll(NAMED_IMPORT)) {
    if (/^\s*import\s*type\b/.test(m[0])) continue;
    const names = m[1]!.split(',').map(
      (n) =>
        n
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0],
    );
    for (const name of names) {
      if (name === 'exec' || name === 'execSync')
        add(m.index, `imports ${name} from child_process`);
    }
  }
  for (const m of code.matchAll(NAMESPACE_IMPORT)) {
    const call = new RegExp(String.raw`\b${m[1]}\.(exec|execSync)\s*\(`, 'g');
    for (const c of code.matchAll(call)) add(c.index, `calls ${m[1]}.${c[1]}`);
  }
  for (const m of code.matchAll(MODULE_EXEC)) add(m.index, `calls ${m[0].replace(/\s*\($/, '')}`);
  for (const m of code.matchAll(SHELL_OPTION)) add(m.index, `passes shell: ${m[1]}`);
  for (const m of code.matchAll(SHELL_BINARY)) add(m.index, `runs a shell: ${m[0]}`);
  return uses.sort((a, b) => a.line - b.line);
}
