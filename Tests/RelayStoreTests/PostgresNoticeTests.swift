import CPostgres
import Foundation
import Testing

@testable import RelayPostgres

/// libpq prints a server's notices, and the FATAL that ends an idle session, on stderr by default, where the
/// relay writes only JSON lines: every connection it makes, the notification listener's too, drops them.
@Suite struct PostgresNoticeTests {
    @Test func everyConnectionReplacesLibpqsNoticePrinter() throws {
        // A closed port: libpq still returns the connection (CONNECTION_BAD), its notice processor set.
        let ours = try #require(
            try PostgresConnectParameters(url: "postgres://relay@127.0.0.1:1/relay", connectTimeout: 1).connect()
        )
        defer { PQfinish(ours) }
        let plain = try #require(PQconnectdb("host=127.0.0.1 port=1 dbname=relay user=relay connect_timeout=1"))
        defer { PQfinish(plain) }
        // A nil processor changes nothing and answers the current one.
        let replaced = try #require(PQsetNoticeProcessor(ours, nil, nil))
        let printer = try #require(PQsetNoticeProcessor(plain, nil, nil))
        #expect(unsafeBitCast(replaced, to: Int.self) != unsafeBitCast(printer, to: Int.self))
    }
}
