import Foundation
import RelayCLI
import RelayCore
import RelayPostgres
import RelaySQLite
import RelayStore

/// A store named on the command line: `sqlite:PATH`, or `postgres:URL` (a libpq connection URI or
/// `key=value` string; a bare `postgres://` or `postgresql://` URI also names one).
enum StorageLocation: Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    /// The SQLite file's path; nil for PostgreSQL.
    var sqlitePath: String? {
        if case .sqlite(let path) = self { path } else { nil }
    }

    /// Reads `text`, the value of `--<option>`.
    /// - Throws: ``RelayCLI/Arguments/Problem`` for another scheme, an empty path or URL, or a URL libpq
    ///   cannot read.
    init(_ text: String, option: String) throws(Arguments.Problem) {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if text.hasPrefix("postgres:"), text.count > "postgres:".count {
            self = .postgres(url: String(text.dropFirst("postgres:".count)))
        } else if text.hasPrefix("sqlite:"), text.count > "sqlite:".count {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else {
            throw Arguments.Problem(
                description: "--\(option) '\(Self.shown(text))' is not sqlite:PATH or postgres:URL"
            )
        }
        if case .postgres(let url) = self,
            let problem = PostgresConnectionString.problem(url, passwordFile: "--password-file")
        {
            throw Arguments.Problem(description: "--\(option): \(problem)")
        }
    }

    /// This location with the password held in `file` (`--password-file`, one trailing newline ignored) added
    /// to a `postgres:` URL; a `sqlite:` location, or no file, keeps it as it is.
    /// - Throws: ``RelayCLI/Arguments/Problem`` when the file cannot be read or is empty, or the URL holds a
    ///   password already.
    func addingPassword(fromFile file: String?) throws(Arguments.Problem) -> StorageLocation {
        guard let file, case .postgres(let url) = self else { return self }
        let password: String
        do {
            password = try PostgresConnectionString.readPassword(file, key: "--password-file")
        } catch {
            throw Arguments.Problem(description: error.problems.joined(separator: "; "))
        }
        do {
            return .postgres(url: try PostgresConnectionString.withPassword(password, in: url))
        } catch {
            throw Arguments.Problem(description: "--password-file: the URL \(error.message)")
        }
    }

    /// Whether both name one store: equal, or SQLite paths to one file however spelled (a link, `./`).
    func namesTheSameStore(as other: StorageLocation) -> Bool {
        guard case .sqlite(let path) = self, case .sqlite(let otherPath) = other else { return self == other }
        return SQLiteStore.sameFile(path, otherPath)
    }

    /// The location for messages: a URI's password is never shown.
    var description: String {
        switch self {
        case .sqlite(let path): "sqlite:\(path)"
        case .postgres(let url): "postgres:\(Self.shown(url))"
        }
    }

    /// `text` without a connection string's password.
    static func shown(_ text: String) -> String { Configuration.withoutPassword(text) }

    /// The store to read from, opened so it is never written (SQLite read-only; PostgreSQL read-only
    /// transactions, after the store's own migration on connecting).
    func openSource(logger: Logger) async throws -> any StoreExport {
        switch self {
        case .sqlite(let path): return try SQLiteReader(path: path)
        case .postgres(let url):
            let store = try PostgresStore(url: url, logger: logger)
            try await store.makeReadOnly()
            try await store.refuseLiveRelays()
            return store
        }
    }

    /// The store a relay serves from, migrated as `serve` would; a SQLite file must hold a store already, so a
    /// mistyped path is an error instead of a new, empty store.
    /// - Throws: ``RelayStore/StoreError`` `.open` when there is no SQLite file at the path, or it (or the
    ///   PostgreSQL database's schema) holds no PushRelay store.
    func openExistingStore(logger: Logger) throws -> any Store & StoreExport {
        switch self {
        case .sqlite(let path):
            guard try SQLiteReader.holdsStore(path) else {
                throw StoreError(code: .open, message: "\(path) holds no PushRelay store")
            }
            return try SQLiteStore(path: path, logger: logger)
        case .postgres(let url):
            guard try PostgresStore.holdsStore(url: url) else {
                throw StoreError(code: .open, message: "\(description) holds no PushRelay store in its schema")
            }
            return try PostgresStore(url: url, logger: logger)
        }
    }

    /// The existing store of `--store` (with `--password-file`), else the store of the relay's configuration
    /// as `serve` reads it (`--config` or `PUSH_RELAY_CONFIG`, `PUSH_RELAY_*` variables: run where the relay
    /// runs, the command needs no location), and the app of `--app`, as the storage commands about one app
    /// take them, with the app's settings when a configuration names it (nil with `--store`). A store a copy
    /// into has not finished is refused, as `serve` refuses it: it holds only part of its source.
    /// - Throws: `Arguments.Problem` for a missing option, `--store` beside `--config`, `--password-file`
    ///   without `--store`, or an id no configuration could hold (before the store is opened);
    ///   ``RelayCore/Configuration/Invalid``; ``openExistingStore(logger:)``'s errors; `.copyUnfinished`.
    static func openAppStore(
        _ arguments: Arguments
    ) async throws -> (store: any Store, app: String, configured: Configuration.App?) {
        let app = try arguments.required("app")
        guard Configuration.isShortId(app) else {
            throw Arguments.Problem(description: "--app: an app id is \(Configuration.shortIdRule)")
        }
        let location: StorageLocation
        var configured: Configuration.App?
        if let store = arguments.value("store") {
            guard arguments.value("config") == nil else {
                throw Arguments.Problem(description: "--store and --config each name a store: give one")
            }
            location = try StorageLocation(store, option: "store")
                .addingPassword(fromFile: arguments.value("password-file"))
        } else {
            guard arguments.value("password-file") == nil else {
                throw Arguments.Problem(
                    description:
                        "--password-file goes with --store (a configuration gives storage.postgres.passwordFile)"
                )
            }
            let configuration = try ConfigurationFile.load(arguments).configuration
            location = try Self.configured(configuration.storage)
            configured = configuration.apps.first { $0.id == app }
        }
        let store = try location.openExistingStore(logger: Logger(label: "storage", level: .warning))
        if let unfinished = try await store.unfinishedCopy() { throw unfinished }
        return (store, app, configured)
    }

    /// The store `storage` names: its PostgreSQL URL (with the password of its password file), else its
    /// SQLite file.
    /// - Throws: ``RelayCore/Configuration/Invalid`` when the URL cannot be read or the file holds no password.
    static func configured(_ storage: Configuration.Storage) throws(Configuration.Invalid) -> StorageLocation {
        if let url = try PostgresConnectionString.connectionURL(storage.postgres) { return .postgres(url: url) }
        return .sqlite(path: storage.sqlitePath)
    }

    /// The store to write into, created or migrated as `serve` would. A SQLite file is held as the relay
    /// `storage-copy` (``RelaySQLite/SQLiteReader/instanceId``) from before it is opened until the copy ends:
    /// a live relay's file is refused untouched, and no relay starts on it half copied.
    func openDestination(logger: Logger) throws -> any StoreImport {
        switch self {
        case .sqlite(let path): return try SQLiteStore(path: path, logger: logger, claiming: SQLiteReader.instanceId)
        case .postgres(let url): return try PostgresStore(url: url, logger: logger)
        }
    }
}
