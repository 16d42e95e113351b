/** The service's version, reported by the OpenAPI document and /healthz. */
export const SERVICE_VERSION = '0.1.0';
