import type { ConvertedFile, FileInput } from '../files/convert.ts';
import { FileConversionError, fileErrorFromMessage } from '../files/errors.ts';
import { InvalidSpecError } from '../openapi/errors.ts';
import { operationsFromSpec, type OperationsResult } from '../openapi/operations.ts';
import { parseSpec } from '../openapi/parse.ts';
import { prepareDocuments, type PreparedDocuments } from '../prepare.ts';

/** One kind of work the worker pool runs (see pool.ts), with its input and output types. */
export interface Task<Input, Output> {
  /** The work, in the worker thread (the thread runs one task at a time, awaiting an async one). */
  run(input: Input): Output | Promise<Output>;
  /** Buffers of the output that are moved to the caller rather than copied. */
  transfer?(output: Awaited<Output>): ArrayBuffer[];
  /** The caller's error when `run` threw an error of this name and message. */
  failed(name: string, message: string): Error;
  /** The caller's error when the worker stopped (out of memory, a crash) before answering. */
  stopped(reason: string): Error;
}

const task = <Input, Output>(definition: Task<Input, Output>): Task<Input, Output> => definition;

/** The tasks by name. A task's input and output cross threads by structured clone. */
export const TASKS = {
  /** Parses an OpenAPI / Swagger document and renders its operations (a large YAML spec takes seconds). */
  parseSpec: task({
    run: (input: { text: string; format: 'json' | 'yaml' }): OperationsResult => operationsFromSpec(parseSpec(input.text, input.format)),
    failed: (name, message) => (name === 'InvalidSpecError' ? new InvalidSpecError(message) : new Error(`Spec processing failed: ${message}`)),
    // Out of memory or a stack overflow in the parser: the spec is what is wrong.
    stopped: (reason) => new InvalidSpecError(`the spec could not be processed within the service's limits (${reason})`),
  }),
  /**
   * Splits documents and embeds their chunks with the built-in embedder of `dimension` (or only
   * splits them, for null: `vectors` is then empty): prepare.ts's prepareDocuments.
   */
  prepareDocuments: task({
    run: (input: { documents: Array<{ title: string; content: string }>; dimension: number | null }): PreparedDocuments =>
      prepareDocuments(input.documents, input.dimension),
    transfer: (output) => [output.vectors.buffer as ArrayBuffer],
    failed: (_name, message) => new Error(`Preparing documents failed: ${message}`),
    // The caller prepares the documents on its own thread instead.
    stopped: (reason) => new Error(`Preparing documents failed: the worker stopped (${reason})`),
  }),
  /**
   * A file as Markdown (files/convert.ts): runs third-party parsers on untrusted bytes, so the
   * pool that runs it bounds its time and memory, and a file it cannot convert fails alone.
   */
  convertFile: task({
    run: async (input: FileInput): Promise<ConvertedFile> => {
      try {
        // The parsers load with the first file, not with the thread.
        const { convertFile } = await import('../files/convert.ts');
        return await convertFile(input);
      } catch (error) {
        // Only the name and message cross threads: the kind travels in the message.
        if (error instanceof FileConversionError) throw Object.assign(new Error(`${error.kind}: ${error.message}`), { name: error.name });
        throw error;
      }
    },
    failed: (name, message) =>
      name === 'FileConversionError' ? fileErrorFromMessage(message) : new FileConversionError('corrupt', `The file could not be read (${message}): it may be damaged`),
    stopped: (reason) => new FileConversionError('limits', `The file could not be converted within the service's limits (${reason})`),
  }),
};

export type TaskName = keyof typeof TASKS;
export type TaskInput<Name extends TaskName> = Parameters<(typeof TASKS)[Name]['run']>[0];
export type TaskOutput<Name extends TaskName> = Awaited<ReturnType<(typeof TASKS)[Name]['run']>>;
