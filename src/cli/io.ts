/** Where a subcommand writes: the process's streams, or a test's sinks. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}
