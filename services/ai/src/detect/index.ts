export { createUploadInspector, UploadInspector, HEAD_BYTES, TAIL_BYTES, type InspectionResult, type TextStats } from './inspector.js';
export { decideDocumentType, looksLikeText, textTypeFor, SUPPORTED_FORMATS, PDF, DOCX, type TypeDecision, type TextEncoding } from './decide.js';
export { sanitizeFilename } from './filename.js';
export { binaryFormatOf } from './signatures.js';
export { listZip, isZip, type ZipListing } from './zip.js';
