/** The message a person should read for a failed call: a tagged error's own message, else the text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
