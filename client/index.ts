/** Public API of the embedded Cube API client. */
export type {
  CubeApi,
  ClientStats,
  CreateOptions,
  CubePage,
  ImportArchiveOptions,
  AttachDomainRequest,
  AttachDomainResponse,
  CreateTcpMappingRequest,
  Domain,
  TcpMapping,
} from "./api.js";
export { uploadParts, type UploadOptions, type UploadedPart } from "./upload.js";
export { createClient, CubeClient, DEFAULT_PAGE_SIZE, type ClientOptions } from "./cube-client.js";
export { clientConfigFromEnv, checkBaseUrl, isLoopbackHost, DEFAULT_BASE_URL, type ClientConfig } from "./config.js";
export {
  MutationPacer,
  MemoryWindowStore,
  DEFAULT_RATE_LIMIT,
  defaultMarginMs,
  type PacerOptions,
  type PacerTicket,
  type WindowStore,
} from "./pacer.js";
export { FileWindowStore, machineStateDir, pacingFileFor } from "./shared-window.js";
export { newIdempotencyKey, checkIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from "./keys.js";
export { DEFAULT_RETRY, backoffDelayMs } from "./retry.js";
export { parseRetryAfter } from "./transport.js";
export {
  downloadArchive,
  partFileOf,
  partRecordFileOf,
  type DownloadOptions,
  type DownloadResult,
  type TransferProgress,
} from "./download.js";
export { DEFAULT_CONNECTIONS, MAX_DEFAULT_CONNECTIONS, type ClientLogEvent, type ClientLogEventType, type RetrySettings } from "./http.js";
export { createNetwork, type Network } from "./dispatcher.js";
export { deviceLogin, type DeviceLoginOptions } from "./device-login.js";
export { ReadMemo } from "./read-memo.js";
export type { RateWait, RateWaitListener } from "./throttle.js";
export {
  CubeApiError,
  isCubeApiError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  TerminationProtectedError,
  ProxyProtocolMismatchError,
  UnprocessableError,
  RateLimitedError,
  ServerError,
  HttpError,
  NetworkError,
  TimeoutError,
  InvalidResponseError,
  InvalidArgumentError,
  ConfigError,
  InsecureUrlError,
  RedirectRefusedError,
  StoppedError,
  TransferError,
  StorageUnreachable,
  type CubeApiErrorCode,
  type ProtectedCubeInfo,
} from "./errors.js";
