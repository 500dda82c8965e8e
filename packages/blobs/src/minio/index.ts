/** `@lantern/blobs/minio`: the blob store on MinIO / S3, loaded only when LANTERN_BLOBS=minio. */
export { createMinioBlobStore } from './store.js';
export { minioOptionsFromUrl, validateMinioOptions, type MinioBlobStoreOptions } from './options.js';
