import Foundation
import RelayCore
import RelayStore
import Testing

@testable import RelaySQLite

/// The files of a new SQLite store: made with their folders, its lock included, and readable by their owner
/// only, since they hold device tokens and message texts.
@Suite struct SQLiteFileTests {
    @Test func aNewStoreIsMadeInNewFoldersForItsOwnerOnly() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("a/b/relay.sqlite").path
        let store = try SQLiteStore(path: path, logger: .disabled(), claiming: "relay-a")
        try await store.execute("CREATE TABLE probe (x); INSERT INTO probe VALUES (1)")
        for file in [path, path + "-wal", path + "-shm", InstanceLock.path(of: path)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(file)")
        }
        // The folders it made are its own too: the names of the files in them are no one else's business.
        for folder in [root.path, root.appendingPathComponent("a").path, root.appendingPathComponent("a/b").path] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder)
            #expect((attributes[.posixPermissions] as? Int) == 0o700, "\(folder)")
        }
    }

    /// An existing file keeps the mode its operator gave it.
    @Test func anExistingStoreKeepsItsMode() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let path = root.appendingPathComponent("relay.sqlite").path
        _ = try SQLiteStore(path: path, logger: .disabled())
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        _ = try SQLiteStore(path: path, logger: .disabled())
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
    }

    /// A folder that cannot be made is named with the system's reason, not Foundation's error dump.
    @Test func aFolderThatCannotBeMadeIsNamedWithItsReason() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try Data().write(to: root)
        let folder = root.appendingPathComponent("sub").path
        #expect(throws: StoreError(code: .open, message: "cannot create folder \(folder): Not a directory")) {
            _ = try SQLiteStore(path: folder + "/relay.sqlite", logger: .disabled())
        }
    }
}
