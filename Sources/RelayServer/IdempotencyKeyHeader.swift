import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayStore

/// The `Idempotency-Key` request header of the webhooks: a client's key for one call, so that a retry of it
/// is answered from the first instead of sending again (draft-ietf-httpapi-idempotency-key-header, "The
/// Idempotency-Key HTTP Header Field").
enum IdempotencyKeyHeader {
    static let name = "Idempotency-Key"
    /// The longest key, in characters.
    static let maxLength = 255

    /// The webhook's ``IdempotencyKey`` for the caller `scope` (`backend`, `user:<userId>`), nil when the
    /// request has no `Idempotency-Key` and is not signed. Its fingerprint is the SHA-256 of the route's kind,
    /// a NUL byte and the raw body bytes: the same key with another body, or on the other webhook route, is
    /// another request.
    ///
    /// A request signed at `signedAt` (a backend's, verified) is also keyed by what was signed: the alias
    /// `signed at <t> <fingerprint>` (the key itself when no `Idempotency-Key` came), however the signature
    /// header is written (another spelling or an added `v1` entry is the same request), so a replay is
    /// answered from the first whatever `Idempotency-Key` it carries. It holds spaces, which no key a client
    /// sends has.
    /// - Throws: ``HTTPError`` 400 `invalid_idempotency_key` as ``key(in:)``.
    static func idempotencyKey(
        _ request: HTTPRequest,
        scope: String,
        kind: NotificationKind,
        signedAt: Int? = nil
    ) throws(HTTPError) -> IdempotencyKey? {
        let fingerprint = fingerprint(request, kind: kind)
        let signed = signedAt.map { "signed at \($0) " + fingerprint.hexString }
        guard let key = try key(in: request.headers) else {
            return signed.map { IdempotencyKey(scope: scope, key: $0, requestHash: fingerprint) }
        }
        return IdempotencyKey(scope: scope, key: key, requestHash: fingerprint, alias: signed)
    }

    /// The SHA-256 of the route's kind, a NUL byte and the raw body bytes.
    private static func fingerprint(_ request: HTTPRequest, kind: NotificationKind) -> Data {
        Digest.sha256(Data(kind.rawValue.utf8) + [0] + request.body)
    }

    /// The key the header carries, nil when there is none; see ``parse(_:)`` for the forms taken.
    /// - Throws: ``HTTPError`` 400 `invalid_idempotency_key` when the header is sent more than once or its
    ///   value is not a key.
    static func key(in headers: HTTPHeaders) throws(HTTPError) -> String? {
        let values = headers.values(for: name)
        guard let value = values.first else { return nil }
        guard values.count == 1 else {
            throw .badRequest(code: "invalid_idempotency_key", message: "\(name) must be sent once")
        }
        guard let key = parse(value) else {
            throw .badRequest(
                code: "invalid_idempotency_key",
                message:
                    "\(name) must be 1 to \(maxLength) visible ASCII characters, quoted (\"...\") or bare"
            )
        }
        return key
    }

    /// The key in one header value, nil when it is not one. The draft's form is a Structured Field string
    /// (RFC 8941 section 3.3.3: `"..."`, with `\"` and `\\` as the only escapes); a value that does not start
    /// with a quote is a bare token, as Stripe-style clients send it, taken as it is. The key (unquoted) is
    /// 1...255 visible ASCII characters, %x21-7E, so neither form carries spaces or control characters.
    static func parse(_ value: String) -> String? {
        var key = String.UnicodeScalarView()
        if value.unicodeScalars.first == "\"" {
            let scalars = value.unicodeScalars.dropFirst()
            guard scalars.last == "\"" else { return nil }
            var escaped = false
            for scalar in scalars.dropLast() {
                if escaped {
                    guard scalar == "\"" || scalar == "\\" else { return nil }
                    key.append(scalar)
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    return nil
                } else {
                    key.append(scalar)
                }
            }
            guard !escaped else { return nil }
        } else {
            key = value.unicodeScalars
        }
        guard (1...maxLength).contains(key.count), key.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            return nil
        }
        return String(key)
    }
}
