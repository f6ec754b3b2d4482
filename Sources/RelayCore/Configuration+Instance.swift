import Foundation

extension Configuration {
    /// The instance id used when `delivery.instanceId` is empty and the store is SQLite: fixed, so a relay
    /// restarted on its file takes back its own leases at once.
    public static let localInstanceId = "local"

    /// The instance id to run as: `delivery.instanceId` when set; else ``localInstanceId`` on SQLite, and on
    /// PostgreSQL `<hostName>-<8 random hex>` (a new one each start, so two relays never share one; the
    /// leases of a run that crashed then end when they expire, unless the id is configured).
    public func resolvedInstanceId(hostName: String = Self.kernelHostName) -> String {
        if !delivery.instanceId.isEmpty { return delivery.instanceId }
        guard storage.postgres.url != nil else { return Self.localInstanceId }
        let host = String(
            hostName.prefix(40).map { $0.isASCII && ($0.isLetter || $0.isNumber) || $0 == "-" ? $0 : "-" }
        )
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        return "\(host.isEmpty ? "relay" : host)-\(String(repeating: "0", count: 8 - random.count))\(random)"
    }

    /// The host name the kernel holds (gethostname(2)); `ProcessInfo.hostName` may ask DNS, which a relay
    /// must not wait for at start-up just for a label.
    public static var kernelHostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `id` is a usable short id (an instance's, an app's): 1 to 64 ASCII letters, digits, `.`, `_`
    /// or `-`. Both are labels of metric series and log lines.
    public static func isShortId(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.isIdentifierText
    }

    /// ``isShortId(_:)``'s rule, as a problem states it.
    public static let shortIdRule = "1 to 64 letters, digits, '.', '_' or '-'"
}
