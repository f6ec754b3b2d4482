import Foundation

/// The `X-PushRelay-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, in the manner
/// of Stripe's webhook signatures. Signs webhooks sent to the relay and the feedback the relay sends out.
public enum WebhookSignature {
    /// The header's name.
    public static let header = "X-PushRelay-Signature"
    /// Signatures older or newer than this many SECONDS are refused (replay window): 300.
    public static let toleranceSeconds = 300
    /// Most `v1` entries a header may carry: a sender rotating its secret signs with two.
    public static let maxSignatures = 8

    /// The header value for `body` signed at `timestamp` (UNIX SECONDS).
    public static func sign(_ body: Data, secret: String, timestamp: Int) -> String {
        "t=\(timestamp),v1=" + mac(body, secret: secret, timestamp: timestamp).hexString
    }

    /// Why a signature was refused.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case missing, malformed, stale, mismatch
        public var description: String {
            switch self {
            case .missing: "\(WebhookSignature.header) is required"
            case .malformed: "\(WebhookSignature.header) must be t=<unix seconds>,v1=<hex HMAC-SHA256>"
            case .stale: "\(WebhookSignature.header) timestamp is outside the \(toleranceSeconds) s window"
            case .mismatch: "\(WebhookSignature.header) does not match the body"
            }
        }
    }

    /// ``verify(_:body:secrets:now:)`` with one secret.
    @discardableResult
    public static func verify(_ value: String?, body: Data, secret: String, now: Date) throws(Failure) -> Int {
        try verify(value, body: body, secrets: [secret], now: now)
    }

    /// Checks a header value against `body`; any `v1` entry that any of `secrets` made passes (several
    /// entries allow secret rotation on the sender's side, several secrets on the receiver's, at most
    /// ``maxSignatures``). Comparison is constant-time. A header with two `t` entries is malformed: a proxy
    /// or log reading the first must not see another time than the one checked.
    /// - Returns: the signed timestamp `t` (UNIX SECONDS): with the body, what names the signed request,
    ///   however its header is written.
    /// - Throws: ``Failure`` saying why it was refused.
    @discardableResult
    public static func verify(_ value: String?, body: Data, secrets: [String], now: Date) throws(Failure) -> Int {
        guard let value, !value.isEmpty else { throw .missing }
        var timestamp: Int?
        var signatures: [Data] = []
        for part in value.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { throw .malformed }
            switch pair[0] {
            // The signed text is "t.body" with t as the header writes it: only a whole number written as
            // Swift writes it (no `+`, no leading zero) is taken, so the header's t is the signed one.
            case "t":
                guard timestamp == nil else { throw .malformed }
                timestamp = Int(pair[1]).flatMap { String($0) == pair[1] ? $0 : nil }
                guard timestamp != nil else { throw .malformed }
            case "v1":
                guard let bytes = Data(hex: pair[1]), signatures.count < maxSignatures else { throw .malformed }
                signatures.append(bytes)
            default: continue
            }
        }
        guard let timestamp, !signatures.isEmpty else { throw .malformed }
        // Any Int the sender wrote: a distance that overflows is far outside the window.
        let (age, overflow) = Int(now.timeIntervalSince1970).subtractingReportingOverflow(timestamp)
        guard !overflow, age.magnitude <= toleranceSeconds.magnitude else { throw .stale }
        var matched = false
        for secret in secrets {
            let expected = mac(body, secret: secret, timestamp: timestamp)
            for signature in signatures where Digest.constantTimeEqual(signature, expected) { matched = true }
        }
        guard matched else { throw .mismatch }
        return timestamp
    }

    private static func mac(_ body: Data, secret: String, timestamp: Int) -> Data {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        return Digest.hmacSHA256(key: Data(secret.utf8), signed)
    }
}

extension Data {
    /// Bytes from hex text (either case); nil when the text is not even-length hex.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
