export { convertFile } from './convert.ts';
export type { ConvertedFile, FileInput } from './convert.ts';
export { FileConversionError, fileErrorFromMessage } from './errors.ts';
export type { FileErrorKind } from './errors.ts';
export { declaredFormat, extensionFormat, FILE_MEDIA_TYPES, SUPPORTED_FILE_TYPES, DOCX_TYPE } from './formats.ts';
export type { FileFormat } from './formats.ts';
export { hasPageMarkers, pageMarker, stripPageMarkers } from './markers.ts';
export { MAX_DOCX_INFLATED_BYTES } from './docx.ts';
