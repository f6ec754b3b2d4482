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
        if let options = PQconninfoParse(url, &error) { return .success(options) }
        defer { if let error { PQfreemem(error) } }
        return .failure(Problem(message: scrubbed(error.map { String(cString: $0) } ?? "out of memory", url: url)))
    }

    /// `message` with each double-quoted part that is a piece of `url` replaced by `<redacted>`, unless it is
    /// only punctuation (libpq's `missing "="`).
    static func scrubbed(_ message: String, url: String) -> String {
        message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .map { index, part in
                let fromURL = index % 2 == 1 && url.contains(part) && part.contains { $0.isLetter || $0.isNumber }
                return fromURL ? "<redacted>" : String(part)
            }
            .joined(separator: "\"")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
