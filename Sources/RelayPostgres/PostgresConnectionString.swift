import CPostgres
import Foundation
import RelayCore

/// `storage.postgres.url`, a libpq connection string (a `postgresql://` URI or `key=value` pairs), read by
/// libpq's own parser.
///
/// libpq quotes the string it cannot read in its message, password and all: every quoted part of a message
/// that comes from the string is replaced by `<redacted>` before the message goes anywhere.
public enum PostgresConnectionString {
    /// Checks that libpq can read the configuration's `storage.postgres.url` and that its
    /// `storage.postgres.passwordFile` can be read (nothing to check without a URL).
    /// - Throws: ``RelayCore/Configuration/Invalid`` as ``connectionURL(_:)``, without the password.
    public static func check(_ configuration: Configuration) throws(Configuration.Invalid) {
        _ = try connectionURL(configuration.storage.postgres)
    }

    /// libpq's reason why it cannot read `url`, scrubbed of it; nil when it can.
    public static func problem(_ url: String) -> String? {
        switch parse(url) {
        case .success(let options):
            PQconninfoFree(options)
            return nil
        case .failure(let problem): return problem.message
        }
    }

    /// libpq's reason why it cannot read a connection string, scrubbed of the string.
    public struct Problem: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The options libpq reads from `url` (the caller frees them with PQconninfoFree), or why it cannot.
    static func parse(_ url: String) -> Result<UnsafeMutablePointer<PQconninfoOption>, Problem> {
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(url, &error) {
            guard portsAreNumbers(options) else {
                PQconninfoFree(options)
                return .failure(
                    Problem(
                        message: "its port is not a number: is there an @ or / in the password? Percent-encode "
                            + "them (@ as %40, / as %2F), or give the password by storage.postgres.passwordFile"
                    )
                )
            }
            return .success(options)
        }
        defer { if let error { PQfreemem(error) } }
        let message = scrubbed(error.map { String(cString: $0) } ?? "out of memory", source: url)
        // libpq reads any string that is not one of its URIs as key=value pairs, and says what is wrong with
        // those (`missing "=" after …`) where the operator gave a URI of another scheme.
        guard url.contains("://"), !uriPrefixes.contains(where: { url.hasPrefix($0) }) else {
            return .failure(Problem(message: message))
        }
        let schemes = uriPrefixes.joined(separator: " or ")
        return .failure(Problem(message: "\(message) (a URI starts with \(schemes))"))
    }

    /// The schemes libpq reads as a connection URI.
    private static let uriPrefixes = ["postgresql://", "postgres://"]

    /// Whether the `port` option, when set, is a comma-separated list of numbers: libpq reads it only when it
    /// connects, and then quotes it in its message (with an unencoded `@` in the password, a piece of it).
    private static func portsAreNumbers(_ options: UnsafeMutablePointer<PQconninfoOption>) -> Bool {
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "port", let value = option.pointee.val {
                return String(cString: value).split(separator: ",", omittingEmptySubsequences: false)
                    .allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
            }
            option += 1
        }
        return true
    }

    /// `message` with each double-quoted part that is a piece of `source` (a connection string, or the
    /// values of its parameters) replaced by `<redacted>`, unless it is only punctuation (libpq's
    /// `missing "="`).
    static func scrubbed(_ message: String, source: String) -> String {
        message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .map { index, part in
                let given = index % 2 == 1 && source.contains(part) && part.contains { $0.isLetter || $0.isNumber }
                return given ? "<redacted>" : String(part)
            }
            .joined(separator: "\"")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
