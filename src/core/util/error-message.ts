/** The message of anything thrown: an Error's message, else the value as text (a thrown string, a rejection reason). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The stack of anything thrown, when it is an Error with one. */
export function errorStack(error: unknown): string | undefined {
  return error instanceof Error ? error.stack : undefined;
}
