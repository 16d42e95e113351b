/**
 * pgvector's encodings of vectors as statement parameters. node-postgres sends a Buffer parameter
 * in binary, which the server copies instead of parsing a thousand decimal numbers; PGlite takes
 * parameters as text, so it gets vector literals (Database.vectorParameter picks for the engine).
 */

export function toVectorLiteral(vector: ArrayLike<number>): string {
  let out = '[';
  for (let i = 0; i < vector.length; i++) {
    if (i > 0) out += ',';
    // Seven significant digits are all a 4-byte float keeps.
    out += Number.isInteger(vector[i]!) ? String(vector[i]) : vector[i]!.toPrecision(7);
  }
  return `${out}]`;
}

/** pgvector's binary form of a vector (int16 dimension, int16 unused, big-endian float4s). */
export function toVectorBinary(vector: ArrayLike<number>): Buffer {
  const buffer = Buffer.allocUnsafe(4 + 4 * vector.length);
  writeVectorBinary(buffer, 0, vector);
  return buffer;
}

/** Writes pgvector's binary form of `vector` at `offset`; returns the offset after it. */
function writeVectorBinary(buffer: Buffer, offset: number, vector: ArrayLike<number>): number {
  let at = buffer.writeInt16BE(vector.length, offset);
  at = buffer.writeInt16BE(0, at);
  for (let i = 0; i < vector.length; i++) at = buffer.writeFloatBE(vector[i]!, at);
  return at;
}

/**
 * Many vectors as one binary PostgreSQL array of pgvector's `vector` (`elementType` is the type's
 * oid, which the extension assigns at install): one parameter that the server copies element by
 * element, where an array of vector literals costs the client escaping every string and the
 * server parsing every number (1,024 of them a vector).
 */
export function toVectorArrayBinary(vectors: ReadonlyArray<ArrayLike<number>>, elementType: number): Buffer {
  let size = 20;
  for (const v of vectors) size += 8 + 4 * v.length;
  const buffer = Buffer.allocUnsafe(size);
  let at = buffer.writeInt32BE(1, 0); // dimensions
  at = buffer.writeInt32BE(0, at); // no nulls
  at = buffer.writeInt32BE(elementType, at);
  at = buffer.writeInt32BE(vectors.length, at);
  at = buffer.writeInt32BE(1, at); // lower bound
  for (const v of vectors) at = writeVectorBinary(buffer, buffer.writeInt32BE(4 + 4 * v.length, at), v);
  return buffer;
}
