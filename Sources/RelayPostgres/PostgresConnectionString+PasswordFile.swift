import CPostgres
import Foundation
import RelayCore

extension PostgresConnectionString {
    /// The connection string the relay connects with: `storage.postgres.url` with the password of
    /// `storage.postgres.passwordFile` added when one is set (read here, once); nil without a URL.
    /// - Throws: ``RelayCore/Configuration/Invalid`` when libpq cannot read the URL, the file cannot be read
    ///   or is empty, or the URL holds a password as well (one place for it).
    public static func connectionURL(
        _ settings: Configuration.Storage.Postgres
    ) throws(Configuration.Invalid) -> String? {
        guard let url = settings.url else { return nil }
        if let problem = problem(url) { throw Configuration.Invalid(["storage.postgres.url: \(problem)"]) }
        guard let file = settings.passwordFile else { return url }
        let password = try readPassword(file, key: "storage.postgres.passwordFile")
        do {
            return try withPassword(password, in: url)
        } catch {
            throw Configuration.Invalid([
                "storage.postgres.url: \(error.message) (storage.postgres.passwordFile is set)"
            ])
        }
    }

    /// The password in `file`: its text without one trailing newline (`\n` or `\r\n`).
    /// - Throws: ``RelayCore/Configuration/Invalid`` naming `key` and the file when it names none (an empty
    ///   variable), cannot be read (saying why: missing, a directory, not a regular file, or not readable), is
    ///   not UTF-8, or
    ///   holds no password.
    public static func readPassword(_ file: String, key: String) throws(Configuration.Invalid) -> String {
        // What the path names, links followed (a mounted secret is often a link): only a regular file is read,
        // so a FIFO without a writer is refused instead of waited on.
        if let problem = FileManager.default.readProblem(atPath: file) {
            throw Configuration.Invalid(["\(key): \(problem)"])
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw Configuration.Invalid(["\(key): cannot read \(file) (not readable by this user)"])
        }
        guard var password = String(data: data, encoding: .utf8) else {
            throw Configuration.Invalid(["\(key): \(file) is not UTF-8 text"])
        }
        if password.utf8.last == UInt8(ascii: "\n") { password.removeLast() }  // "\r\n" is one Character
        guard !password.isEmpty else { throw Configuration.Invalid(["\(key): \(file) is empty"]) }
        return password
    }

    /// `url` with `password` added: a URI gains a percent-encoded `password` query parameter, a `key=value`
    /// string a quoted `password` value (libpq reads both).
    /// - Throws: ``Problem`` when libpq cannot read `url` or it holds a password already.
    public static func withPassword(_ password: String, in url: String) throws(Problem) -> String {
        let options: UnsafeMutablePointer<PQconninfoOption>
        switch parse(url) {
        case .success(let parsed): options = parsed
        case .failure(let problem): throw problem
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", option.pointee.val != nil {
                throw Problem(message: "holds a password already; give it in one place")
            }
            option += 1
        }
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            let encoded = password.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
            return url + (url.contains("?") ? "&" : "?") + "password=" + encoded
        }
        let quoted = password.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return url + " password='" + quoted + "'"
    }

    /// RFC 3986's unreserved characters: everything else in a password is percent-encoded.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
}
