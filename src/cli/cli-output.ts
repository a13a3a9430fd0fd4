/** Where the CLI writes (the process's stdout and stderr when run as a program). */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}
