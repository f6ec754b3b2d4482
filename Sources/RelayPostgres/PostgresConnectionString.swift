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
    /// - Parameter passwordFile: the setting or option that gives a password instead, for the message.
    public static func problem(_ url: String, passwordFile: String = configurationPasswordFile) -> String? {
        switch parse(url, passwordFile: passwordFile) {
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

    /// Where the configuration gives the password instead of the URL.
    public static let configurationPasswordFile = "storage.postgres.passwordFile"

    /// The options libpq reads from `url` (the caller frees them with PQconninfoFree), or why it cannot;
    /// `passwordFile` names where a password may be given instead.
    static func parse(
        _ url: String,
        passwordFile: String = configurationPasswordFile
    ) -> Result<UnsafeMutablePointer<PQconninfoOption>, Problem> {
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(url, &error) {
            if let spilled = passwordSpill(options) {
                PQconninfoFree(options)
                return .failure(
                    Problem(
                        message: "\(spilled): is there an @ or / in the password? Percent-encode them (@ as %40, / "
                            + "as %2F), or give the password by \(passwordFile)"
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

    /// What shows that a password's unencoded `@` or `/` spilled into the host or the port, nil when nothing
    /// does: a port that is not a comma-separated list of numbers (libpq reads it only when it connects, and
    /// then quotes it in its message: a piece of the password), or a host or database name holding an `@`
    /// (`relay:1234/x@db` gives the port 1234, which libpq prints unquoted, and the database `x@db`).
    private static func passwordSpill(_ options: UnsafeMutablePointer<PQconninfoOption>) -> String? {
        var option = options
        while let keyword = option.pointee.keyword {
            defer { option += 1 }
            guard let value = option.pointee.val.map({ String(cString: $0) }) else { continue }
            switch String(cString: keyword) {
            case "port":
                let numbers = value.split(separator: ",", omittingEmptySubsequences: false)
                    .allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
                if !numbers { return "its port is not a number" }
            case "host" where value.contains("@"):
                return "its host holds an @"
            case "dbname" where value.contains("@"):
                return "its database name holds an @"
            default: break
            }
        }
        return nil
    }

    /// `message` with each double-quoted part that is a piece of `source` (a connection string, or the
    /// values of its parameters), or that holds one of `values` (a socket directory libpq names with its
    /// socket file, `/run/db/.s.PGSQL.5432`), replaced by `<redacted>`, unless it is only punctuation (libpq's
    /// `missing "="`).
    static func scrubbed(_ message: String, source: String, values: [String] = []) -> String {
        let named = values.filter { $0.count > 1 && $0.contains { $0.isLetter || $0.isNumber } }
        return message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
            .map { index, part in
                let given =
                    index % 2 == 1 && part.contains { $0.isLetter || $0.isNumber }
                    && (source.contains(part) || named.contains { part.contains($0) })
                return given ? "<redacted>" : String(part)
            }
            .joined(separator: "\"")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
