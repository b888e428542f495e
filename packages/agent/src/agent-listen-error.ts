/**
 * What the agent could not listen on (its socket, or the `--metrics-listen` address) and why; the
 * agent does not start (exit status 1). `where` names it as the user gave it.
 */
export class AgentListenError extends Error {
  override readonly name = 'AgentListenError';
  constructor(
    readonly where: string,
    override readonly cause: unknown,
  ) {
    super(`cannot listen on ${where}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}
