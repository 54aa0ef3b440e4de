/**
 * A failed connection said for a person (the cause and what to do), and whether resending can help. Never resent: a refused
 * certificate, a handshake that is not TLS, a request that cannot be put on the wire. ENOTFOUND is resent once (a resolver that
 * lost its network for a moment says the same). Anything else follows the retry policy.
 */
import type { Network, Proxy } from "./dispatcher.js";
import { NetworkError, StorageUnreachable } from "./errors.js";

export interface NetworkCause {
  /** The underlying code, e.g. ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID. */
  code: string;
  /** What happened and what to do, e.g. "connection refused (ECONNREFUSED): …". */
  text: string;
  /** At most this many resends; undefined: the retry policy decides. */
  retryLimit?: number;
}

const UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "CERT_REJECTED",
  "CERT_REVOKED",
  "INVALID_CA",
]);

const PLAIN: Record<string, string> = {
  ECONNREFUSED: "connection refused (ECONNREFUSED): nothing accepts connections there; is the server up and the URL's port right?",
  ECONNRESET: "the connection was reset before an answer arrived (ECONNRESET)",
  EPIPE: "the connection was closed while the request was sent (EPIPE)",
  ETIMEDOUT: "the connection timed out (ETIMEDOUT): the host does not answer; check the URL and your network",
  EHOSTUNREACH: "no route to the host (EHOSTUNREACH): check your network",
  ENETUNREACH: "the network is unreachable (ENETUNREACH): check your network",
  EAI_AGAIN: "the host name could not be looked up for now (EAI_AGAIN): check your network and DNS",
  UND_ERR_SOCKET: "the connection closed before an answer arrived (UND_ERR_SOCKET)",
};

/** `detail` is the socket's own message (used where it names more than the code, e.g. the certificate's names). */
export function describeNetworkCause(code: string, detail: string | undefined, host: string): NetworkCause {
  if (code === "ENOTFOUND") {
    return { code, text: `the host name ${host} was not found (ENOTFOUND): check the URL's host name`, retryLimit: 1 };
  }
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    // "…altnames: Host: h. is not in the cert's altnames: DNS:a, DNS:b" (or "…cert's list: 10.0.0.1" for an IP)
    const names = /.*(?:altnames|cert's list): (.*)$/.exec(detail ?? "")?.[1];
    const which = names ? `: it is for ${names}` : "";
    return {
      code,
      text: `TLS: the server's certificate is not valid for the name ${host}${which} (${code}); use a URL with a name the certificate holds`,
      retryLimit: 0,
    };
  }
  if (code === "CERT_HAS_EXPIRED")
    return { code, text: `TLS: the server's certificate has expired (${code}); the server must renew it`, retryLimit: 0 };
  if (code === "CERT_NOT_YET_VALID")
    return { code, text: `TLS: the server's certificate is not valid yet (${code}); check this machine's clock`, retryLimit: 0 };
  if (UNTRUSTED.has(code)) {
    const what = detail && !detail.includes(code) ? `${code}: ${detail}` : code;
    return {
      code,
      text: `TLS: the server's certificate is not trusted (${what}); if the server uses a private CA, give its root certificate in CUBE_CA_FILE (or NODE_EXTRA_CA_CERTS)`,
      retryLimit: 0,
    };
  }
  if (code === "EPROTO" || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_")) {
    return { code, text: `the TLS handshake failed (${code}): does the server speak HTTPS on that port?`, retryLimit: 0 };
  }
  if (code === "INVALID_TARGET") return { code, text: "the request path cannot be sent as it is (INVALID_TARGET)", retryLimit: 0 };
  if (code.startsWith("HPE_") || code === "UNEXPECTED_DATA") return { code, text: `the server's answer is not HTTP (${code})` };
  // undici's word for a "100 Continue" nobody asked for (cubeform sends no Expect header): it cannot read the answer after it.
  if (code === "UND_ERR_SOCKET" && detail === "bad response") {
    return {
      code,
      text: `the server's answer began with a "100 Continue" that was not asked for (cubeform sends no Expect: 100-continue), which the HTTP client cannot read past (${code})`,
    };
  }
  return { code, text: PLAIN[code] ?? `network error (${code})` };
}

type Failure = { code?: unknown; message?: unknown; name?: unknown };

/** Why `target` could not be reached: what the proxy did when the request went through one, else the socket's or TLS layer's cause. */
function causeOf(failure: Failure, target: URL, proxy: Proxy | undefined): NetworkCause {
  const code = typeof failure.code === "string" ? failure.code : typeof failure.name === "string" ? failure.name : "unknown";
  const message = typeof failure.message === "string" ? failure.message : undefined;
  if (proxy === undefined) return describeNetworkCause(code, message, target.hostname.replace(/^\[|\]$/g, ""));
  const cause = proxyCause(code, message, proxy);
  return { ...cause, text: `the proxy ${proxy.shown} (from ${proxy.variable}) ${cause.text}` };
}

/** The NetworkError of a request that got no answer: names the API's origin, or the proxy, and the cause (never the raw error). */
export function networkError(failure: Failure, method: string, path: string, base: URL, proxy?: Proxy): NetworkError {
  const cause = causeOf(failure, base, proxy);
  const where = proxy === undefined ? `Cube API ${method} ${path} at ${base.origin} failed:` : `Cube API ${method} ${path}:`;
  return new NetworkError(`${where} ${cause.text}`, {
    method,
    path,
    origin: base.origin,
    reason: cause.code,
    retryLimit: cause.retryLimit,
  });
}

/** What went wrong at the proxy: a refused tunnel names the proxy's status; anything else is the connection to it. */
function proxyCause(code: string, message: string | undefined, proxy: Proxy): NetworkCause {
  const refused = /Proxy response \((\d+)\)/.exec(message ?? "")?.[1];
  if (refused !== undefined) {
    const hint = refused === "407" ? ": it asks for credentials (put them in the proxy URL)" : "";
    return {
      code: `PROXY_${refused}`,
      text: `refused the tunnel to the API (HTTP ${refused})${hint}`,
      retryLimit: refused.startsWith("5") ? undefined : 0,
    };
  }
  const cause = describeNetworkCause(code, message, new URL(proxy.shown).hostname);
  return { ...cause, text: `failed: ${cause.text}` };
}

/** A download or part upload to a (presigned) storage URL that got no answer. */
export function storageFailure(failure: Failure, method: string, url: string, network: Pick<Network, "proxyFor">): StorageUnreachable {
  const target = new URL(url);
  const proxy = network.proxyFor(target);
  const cause = causeOf(failure, target, proxy);
  return new StorageUnreachable(
    `${method} to the storage at ${target.origin}${proxy === undefined ? " failed" : ""}: ${cause.text}`,
    target.origin,
    cause.retryLimit,
  );
}
