import Foundation
import RelayCore
import Testing

@testable import RelayPostgres

/// `storage.postgres.passwordFile`: read once, one trailing newline dropped, handed to libpq as the password
/// whatever characters it holds.
@Suite struct PostgresPasswordFileTests {
    /// The password libpq reads from the connection string the relay connects with.
    static func password(url: String, file: String) throws -> String? {
        let settings = Configuration.Storage.Postgres(url: url, passwordFile: file)
        let connection = try #require(try PostgresConnectionString.connectionURL(settings))
        return try PostgresConnectParameters(url: connection, connectTimeout: 5).value(of: "password")
    }

    @Test(arguments: [
        "postgresql://relay@db.internal:5432/relay", "postgresql://relay@db.internal/relay?sslmode=disable",
        "host=db.internal user=relay dbname=relay",
    ])
    func theFilesPasswordReachesLibpqWhateverItHolds(url: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (text, password) in [
            ("Pw/9f3k@x\n", "Pw/9f3k@x"), ("a b'c\\d&e=f?g#h%\r\n", "a b'c\\d&e=f?g#h%"), ("plain", "plain"),
        ] {
            let file = directory.appendingPathComponent("password").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            #expect(try Self.password(url: url, file: file) == password, "\(url) \(text.debugDescription)")
        }
    }

    @Test func anUnreadableOrEmptyFileIsAClearProblem() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pw-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = "postgresql://relay@db.internal/relay"
        let missing = directory.appendingPathComponent("missing").path
        // A FIFO without a writer is refused, not waited on.
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let problems = [
            missing: "storage.postgres.passwordFile: cannot read \(missing) (no such file)",
            directory.path: "storage.postgres.passwordFile: cannot read \(directory.path) (a directory)",
            "": "storage.postgres.passwordFile: names no file (it is empty)",
            fifo: "storage.postgres.passwordFile: cannot read \(fifo) (not a regular file)",
        ]
        for (file, problem) in problems {
            #expect {
                try PostgresConnectionString.connectionURL(.init(url: url, passwordFile: file))
            } throws: { error in
                (error as? Configuration.Invalid)?.problems == [problem]
            }
        }
        let empty = directory.appendingPathComponent("empty").path
        try Data("\n".utf8).write(to: URL(fileURLWithPath: empty))
        #expect {
            try PostgresConnectionString.connectionURL(.init(url: url, passwordFile: empty))
        } throws: { error in
            (error as? Configuration.Invalid)?.problems == ["storage.postgres.passwordFile: \(empty) is empty"]
        }
        // A link to the file (a mounted secret) is followed.
        let file = directory.appendingPathComponent("password").path
        try Data("Pw\n".utf8).write(to: URL(fileURLWithPath: file))
        let link = directory.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        #expect(try PostgresConnectionString.readPassword(link, key: "k") == "Pw")
    }
}

/// A password with an unencoded `@` or `/` in the URL: libpq reads a piece of it as the port, which is only
/// checked when it connects; the relay names the problem first, never quoting the piece.
@Suite struct PostgresURLPortTests {
    @Test func aPasswordReadAsThePortIsNamedWithoutQuotingIt() throws {
        let url = "postgresql://relay:Pw/9f3k@x@127.0.0.1:19432/relay"
        let problem = try #require(PostgresConnectionString.problem(url))
        #expect(problem.contains("percent-encode") || problem.contains("Percent-encode"), "\(problem)")
        #expect(!problem.contains("Pw") && !problem.contains("9f3k"), "\(problem)")
        #expect(PostgresConnectionString.problem("postgresql://relay@db.internal:5432,db2:5433/relay") == nil)
        #expect(PostgresConnectionString.problem("postgresql://relay@db.internal/relay") == nil)
    }

    /// A URI of another scheme is read as key=value pairs by libpq; the problem says which schemes it reads,
    /// still without the password.
    @Test func aURIOfAnotherSchemeNamesTheSchemesLibpqReads() throws {
        let problem = try #require(PostgresConnectionString.problem("mysql://relay:s3cret@db/relay"))
        #expect(problem.hasSuffix("(a URI starts with postgresql:// or postgres://)"), "\(problem)")
        #expect(!problem.contains("s3cret"), "\(problem)")
        let keyValue = try #require(PostgresConnectionString.problem("host=db password"))
        #expect(!keyValue.contains("postgresql://"), "\(keyValue)")
    }
}
