import Foundation
import RelayCore
import RelaySQLite
import RelayStore
import RelayTestSupport
import Testing

/// `push-relay storage requery-done`, run as a process on a SQLite store with a pending requery.
@Suite struct StorageRequeryCommandTests {
    /// Records a `requeryRequired` at `txnId` for the app `chat` in the SQLite store at `path`.
    private static func requery(_ txnId: Int, at path: String) async throws {
        let store = try SQLiteStore(path: path, logger: .disabled())
        let settings = DittoApplySettings(rule: DittoMessageRule(), sendAs: "t", ttlSeconds: 60, privacy: false)
        let requery = try DittoEvent.decode(Array(#"{"txnId":\#(txnId),"type":"requeryRequired"}"#.utf8))
        _ = try await store.applyDittoEvents([requery], appId: "chat", settings: settings, at: Date())
    }

    /// `--txn-id` names the requery a re-feed answered: a later one stays pending, and a number above the
    /// pending one clears only that one, so a requery still to come is not taken as done.
    @Test func aTxnIdClearsOnlyTheRequeryTheRefeedAnswered() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        try await Self.requery(7, at: path)
        let store = ["--store", "sqlite:\(path)", "--app", "chat"]
        let early = try await CommandTests.run(["storage", "requery-done", "--txn-id", "5"] + store)
        #expect(early.status == 0 && early.stdout.contains(#""cleared":null"#), "\(early.stdout)")
        #expect(early.stderr.contains("(txnId 7) came after --txn-id 5"), "\(early.stderr)")
        #expect(try await SQLiteStore(path: path, logger: .disabled()).pendingDittoRequeries() == ["chat": 7])

        let above = try await CommandTests.run(["storage", "requery-done", "--txn-id", "20"] + store)
        #expect(above.status == 0 && above.stdout.contains(#""cleared":7"#), "\(above.stdout)")
        // A requery after the cleared one, below the number given, is pending: it was not counted as done.
        try await Self.requery(9, at: path)
        #expect(try await SQLiteStore(path: path, logger: .disabled()).pendingDittoRequeries() == ["chat": 9])
        let exact = try await CommandTests.run(["storage", "requery-done", "--txn-id", "9"] + store)
        #expect(exact.status == 0 && exact.stdout.contains(#""cleared":9"#), "\(exact.stdout)")
        #expect(try await SQLiteStore(path: path, logger: .disabled()).pendingDittoRequeries().isEmpty)

        for given in ["-1", "seven", "9223372036854775808", "7.0"] {
            let problem = "--txn-id must be a txnId, 0 to 9223372036854775807, got '\(given)'"
            let bad = try await CommandTests.run(["storage", "requery-done", "--txn-id", given] + store)
            #expect(bad.status == 2 && bad.stderr.contains(problem), "\(given): \(bad.stderr)")
        }
    }

    /// An app that re-reads its collections itself (`ditto.httpAPI`) is cleared as asked, with a warning that
    /// its own re-read may not have finished; without the configuration (`--store`) nothing can be said.
    @Test func anAppWithTheHTTPAPIIsClearedWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        try await Self.requery(7, at: path)
        let config = directory.url.appendingPathComponent("config.json")
        let hash = String(repeating: "a", count: 64)
        try Data(
            #"""
            {"storage": {"sqlitePath": "\#(path)"},
             "apps": [{"id": "chat", "topic": "t", "apiKeySHA256": ["\#(hash)"],
                       "ditto": {"ingestSecretSHA256": ["\#(String(repeating: "b", count: 64))"],
                                 "httpAPI": {"url": "https://app.cloud.example/", "apiKey": "k"}}}]}
            """#.utf8
        ).write(to: config)
        let done = try await CommandTests.run(["storage", "requery-done", "--config", config.path, "--app", "chat"])
        #expect(done.status == 0 && done.stdout.contains(#""cleared":7"#), "\(done.stdout)\n\(done.stderr)")
        #expect(done.stderr.contains("re-reads its collections itself (apps[].ditto.httpAPI)"), "\(done.stderr)")
        try await Self.requery(9, at: path)
        let bare = try await CommandTests.run(["storage", "requery-done", "--store", "sqlite:\(path)", "--app", "chat"])
        #expect(bare.status == 0 && !bare.stderr.contains("httpAPI"), "\(bare.stderr)")
    }

    /// A store a copy into has not finished holds only part of its source: the storage commands neither copy
    /// it nor change it, as `serve` does not serve it.
    @Test func aStoreACopyHasNotFinishedIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        try await Self.requery(7, at: path)
        try await SQLiteStore(path: path, logger: .disabled()).beginImport()
        let copy = directory.url.appendingPathComponent("copy.sqlite").path
        let commands = [
            ["storage", "copy", "--from", "sqlite:\(path)", "--to", "sqlite:\(copy)"],
            ["storage", "requery-done", "--store", "sqlite:\(path)", "--app", "chat"],
            ["storage", "end-pending", "--store", "sqlite:\(path)", "--app", "chat"],
        ]
        for command in commands {
            let refused = try await CommandTests.run(command)
            #expect(refused.status == 1, "\(command[1]): \(refused.stdout)")
            #expect(refused.stderr.contains("has not finished"), "\(command[1]): \(refused.stderr)")
        }
        #expect(try await SQLiteStore(path: path, logger: .disabled()).pendingDittoRequeries() == ["chat": 7])
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    @Test func itClearsThePendingRequeryAndSaysWhichItClearedOfAnExistingStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("relay.sqlite").path
        do {
            let store = try SQLiteStore(path: path, logger: .disabled())
            let settings = DittoApplySettings(rule: DittoMessageRule(), sendAs: "t", ttlSeconds: 60, privacy: false)
            let requery = try DittoEvent.decode(Array(#"{"txnId":7,"type":"requeryRequired"}"#.utf8))
            _ = try await store.applyDittoEvents([requery], appId: "chat", settings: settings, at: Date())
            #expect(try await store.pendingDittoRequeries() == ["chat": 7])
        }
        let done = try await CommandTests.run(["storage", "requery-done", "--store", "sqlite:\(path)", "--app", "chat"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains(#"{"app":"chat","cleared":7}"#), "\(done.stdout)")
        #expect(try await SQLiteStore(path: path, logger: .disabled()).pendingDittoRequeries().isEmpty)
        let again = try await CommandTests.run([
            "storage", "requery-done", "--store", "sqlite:\(path)", "--app", "chat",
        ])
        #expect(again.status == 0 && again.stdout.contains(#""cleared":null"#), "\(again.stdout)")
        #expect(again.stderr.contains("no requeryRequired pending"), "\(again.stderr)")
        // A mistyped path is an error, and no store is made there.
        let typo = directory.url.appendingPathComponent("new/relay.sqlite").path
        let mistyped = try await CommandTests.run([
            "storage", "requery-done", "--store", "sqlite:\(typo)", "--app", "chat",
        ])
        #expect(mistyped.status == 1 && mistyped.stderr.contains("no SQLite store at"), "\(mistyped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("new").path))
        // A file or a folder that holds no store is not made into one.
        let empty = directory.url.appendingPathComponent("empty.sqlite")
        try Data().write(to: empty)
        for (target, problem) in [(empty.path, "holds no PushRelay store"), (directory.url.path, "no SQLite store at")]
        {
            let refused = try await CommandTests.run([
                "storage", "requery-done", "--store", "sqlite:\(target)", "--app", "chat",
            ])
            #expect(refused.status == 1 && refused.stderr.contains(problem), "\(refused.stderr)")
        }
        #expect(try Data(contentsOf: empty).isEmpty)
        let missing = try await CommandTests.run(["storage", "requery-done", "--app"])
        #expect(missing.status == 2 && missing.stderr.contains("--app needs a value"), "\(missing.stderr)")
        // An app id no configuration could hold is a mistake in the command, before the store is opened.
        for app in ["", "chat app", String(repeating: "a", count: 65)] {
            let bad = try await CommandTests.run(["storage", "requery-done", "--store", "sqlite:\(path)", "--app", app])
            #expect(bad.status == 2 && bad.stderr.contains("--app: an app id is 1 to 64"), "\(app): \(bad.stderr)")
        }
    }
}
