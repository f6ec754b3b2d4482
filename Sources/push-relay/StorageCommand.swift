import Foundation
import RelayCLI
import RelayCore
import RelaySQLite
import RelayStore

/// `push-relay storage copy --from LOCATION --to LOCATION [--batch N]`: copies a relay's data (devices,
/// rooms and members, notifications with their deliveries, idempotency keys, queued feedback) from one
/// store into a new, empty one, e.g. from its SQLite file into PostgreSQL. Prints one JSON line of the rows
/// copied per table and the seconds taken. Exit status 2 for a mistake in the command or a destination that
/// holds data, 1 when a store cannot be opened or a batch fails. `push-relay storage requery-done` is
/// ``StorageRequeryCommand``, `push-relay storage end-pending` ``StorageEndPendingCommand``.
enum StorageCommand {
    static let usage = """
        usage: push-relay storage copy --from LOCATION --to LOCATION [--batch N] [--password-file FILE]
          LOCATION is sqlite:PATH or postgres:URL (a libpq URI, e.g. postgres:postgresql://relay@db/relay;
          percent-encode a password in it, or give it in FILE, as storage.postgres.passwordFile).
          Copies devices, rooms and members, notifications with their deliveries (ids, apns-ids, attempts,
          statuses, due times), idempotency keys and queued feedback into an EMPTY destination, N rows per
          transaction (default 1000). Leases are not copied: pending deliveries are claimable at once. The
          source's rows are read, never changed (a PostgreSQL source's schema is migrated first, and SQLite
          makes its -wal and -shm files beside a source file); stop the relays that use it first
          (a source a live relay serves is refused).
               push-relay storage requery-done --app ID [--txn-id N] [--config FILE | --store LOCATION [--password-file FILE]]
          \(StorageRequeryCommand.summary)
               push-relay storage end-pending --app ID [--config FILE | --store LOCATION [--password-file FILE]]
          \(StorageEndPendingCommand.summary)
          Without --store, these two use the store of the relay's configuration, read as 'serve' reads it
          (--config or PUSH_RELAY_CONFIG, then PUSH_RELAY_* variables): run them where the relay runs.
        """

    /// The options of each subcommand: another's is refused as unknown, as a typo is.
    static let options: [String: Set<String>] = [
        "copy": ["from", "to", "batch", "password-file"],
        "requery-done": ["store", "config", "app", "password-file", "txn-id"],
        "end-pending": ["store", "config", "app", "password-file"],
    ]

    static func run(_ words: [String]) async throws -> Int32 {
        let any = try Arguments(words, switches: ["help"], options: options.values.reduce([], { $0.union($1) }))
        if any.flag("help") {
            say(usage)
            return 0
        }
        let own = any.positional.first.flatMap { options[$0] } ?? options["copy"]
        let arguments = try Arguments(words, switches: ["help"], options: own, positional: 1)
        switch try arguments.subcommand(of: ["copy", "requery-done", "end-pending"], usage: usage) {
        case "requery-done": return try await StorageRequeryCommand.run(arguments)
        case "end-pending": return try await StorageEndPendingCommand.run(arguments)
        default: break
        }
        let passwordFile = arguments.value("password-file")
        // Shown as given: a password from the file goes into the URL, which would then show a query.
        let givenFrom = try StorageLocation(try arguments.required("from"), option: "from")
        let givenTo = try StorageLocation(try arguments.required("to"), option: "to")
        let from = try givenFrom.addingPassword(fromFile: passwordFile)
        let to = try givenTo.addingPassword(fromFile: passwordFile)
        guard !from.namesTheSameStore(as: to) else {
            throw Arguments.Problem(description: "--from and --to name the same store")
        }
        let copy = StoreCopy(batchSize: try arguments.positiveInteger("batch", default: 1000))
        let logger = Logger(label: "storage", level: .warning)

        let began = ContinuousClock.now
        let source = try await from.openSource(logger: logger)
        let made = to.sqlitePath.map(Self.isNothing) ?? false
        let destination: any StoreImport
        do {
            destination = try to.openDestination(logger: logger)
        } catch {
            // The files an open that failed part way made (`sqlite::memory:` cannot take WAL) are not kept.
            if made, let path = to.sqlitePath { Self.remove(SQLiteStore.files(of: path)) }
            throw error
        }
        let counts: [StoreTable: Int]
        var wrote = false
        do {
            counts = try await copy.run(from: source, to: destination, began: { wrote = true })
        } catch let refusal as StoreCopy.Refusal {
            FileHandle.standardError.writeLine("push-relay storage: \(givenTo.description): \(refusal)")
            return 2
        } catch {
            // Refused before its first write (a live relay on the destination), the copy left it as it was.
            if !wrote {
                if made, let path = to.sqlitePath { Self.remove(SQLiteStore.files(of: path)) }
                throw error
            }
            FileHandle.standardError.writeLine(
                "push-relay storage: \(givenTo.description): \(Self.leftBehind(by: to, made: made))"
            )
            throw error
        }
        let seconds = (began.duration(to: .now) / .milliseconds(1)).rounded() / 1000
        var report: [String: Any] = ["from": givenFrom.description, "to": givenTo.description, "seconds": seconds]
        for table in StoreTable.allCases { report[table.rawValue] = counts[table] ?? 0 }
        let line = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys, .withoutEscapingSlashes])
        say(String(decoding: line, as: UTF8.self))
        return 0
    }

    /// Whether nothing is at `path`: no file, no directory, no symbolic link (one that points nowhere
    /// included: SQLite would make the file it points to), and no SQLite URI (`file:…`, whose file has
    /// another name). Only then is a file the copy made its own to remove.
    static func isNothing(_ path: String) -> Bool {
        var status = stat()
        return !path.hasPrefix("file:") && lstat(path, &status) != 0 && errno == ENOENT
    }

    /// What a copy that failed part way leaves at `destination`, which holds the batches written before the
    /// failure: a SQLite file the copy `made` is removed (with its WAL, shared memory and lock files), so
    /// that the same command can run again; any other destination is named, to be emptied first.
    static func leftBehind(by destination: StorageLocation, made: Bool) -> String {
        guard made, let path = destination.sqlitePath else {
            return "the copy failed part way: the destination holds the rows copied before the failure; "
                + "copy into a new database (or empty this one) once the cause is mended"
        }
        remove(SQLiteStore.files(of: path))
        return "the copy failed part way: removed the file it had made"
    }

    private static func remove(_ files: [String]) {
        for file in files { try? FileManager.default.removeItem(atPath: file) }
    }
}
