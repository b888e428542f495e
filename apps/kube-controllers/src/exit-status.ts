/** netledger-kube-controllers' exit statuses. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** Says `message` on stderr (after the program's name) and returns `status`, the exit status. */
export type Fail = (status: number, message: string) => number;
