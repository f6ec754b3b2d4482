import Foundation
import RelayPostgres
import RelayStore
import Testing

/// What a failed connection's error may show of the connection string.
struct PostgresErrorTextTests {
    /// libpq names a socket directory given in the URI (percent-encoded there) with its socket file
    /// appended: the path is redacted all the same.
    @Test func aSocketDirectoryIsRedactedFromAFailedConnectionsError() throws {
        let folder = "push-relay-nosocket-\(UUID().uuidString.prefix(8))"
        let url = "postgresql://relay@%2Ftmp%2F\(folder)/relaydb?connect_timeout=2"
        do {
            _ = try PostgresStore(url: url, logger: .disabled())
            Issue.record("a store opened at \(url)")
        } catch {
            let text = "\(error)"
            #expect(!text.contains(folder), "\(text)")
            #expect(text.contains("\"<redacted>\""), "\(text)")
        }
    }
}
