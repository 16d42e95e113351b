/**
 * The uploaded text is not a usable OpenAPI / Swagger document. The message says what is wrong
 * (with a line and column when the parser gives one) and is safe to return to the caller.
 */
export class InvalidSpecError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidSpecError';
  }
}
