/**
 * Why a file could not be turned into Markdown. `unsupported`: a type the service does not read;
 * `mismatch`: the content is not what its declared type says; `no-text`: a PDF without a text
 * layer (a scan); `encrypted`: a password-protected PDF; `corrupt`: truncated or malformed;
 * `limits`: it would take more memory or time than a file may (a zip bomb, a parser that hangs).
 */
export type FileErrorKind = 'unsupported' | 'mismatch' | 'no-text' | 'encrypted' | 'corrupt' | 'limits';

export class FileConversionError extends Error {
  constructor(
    readonly kind: FileErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'FileConversionError';
  }
}

const KINDS: ReadonlySet<string> = new Set(['unsupported', 'mismatch', 'no-text', 'encrypted', 'corrupt', 'limits']);

/** The error again after crossing threads, where only its name and message survive (`kind: message`). */
export function fileErrorFromMessage(message: string): FileConversionError {
  const at = message.indexOf(': ');
  const kind = at > 0 ? message.slice(0, at) : '';
  return KINDS.has(kind) ? new FileConversionError(kind as FileErrorKind, message.slice(at + 2)) : new FileConversionError('corrupt', message);
}
