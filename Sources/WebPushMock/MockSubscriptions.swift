import Foundation
import RelayCore
import Synchronization
import WebPushCore

/// The subscriptions a mock made, by id: in memory, and in the subscriptions directory when one is
/// configured, where each is `<id>.json` (mode 0600) so that other processes' subscriptions are opened too.
/// Any thread may call it; the table sits behind a Mutex.
final class MockSubscriptions: Sendable {
    let directory: String?
    private let table = Mutex<[String: MockSubscription]>([:])
    /// Key pairs read from files, by the file's private key and auth secret: reading one (OpenSSL parses the
    /// PEM) costs far more than opening a push, and files made by ``MockWebPushServer/newSubscriptions(count:
    /// keyPairs:baseURL:)`` share a few key pairs.
    private let keyPairs = Mutex<[String: SubscriptionKeyPair]>([:])
    /// Most subscriptions held in memory; past it the table is emptied (the directory still has them).
    private static let memoryLimit = 100_000
    /// Most key pairs held in ``keyPairs``; past it the cache is emptied.
    private static let keyPairLimit = 4096

    init(directory: String?) {
        self.directory = directory
    }

    /// Makes a subscription under `baseURL`, holds it, and writes its file when there is a directory.
    /// - Throws: ``MockWebPushError`` `.invalidConfiguration` for an unusable base URL, key or directory.
    /// - Parameter keyPair: the subscription's key pair; nil makes a new one.
    func make(
        baseURL: String,
        applicationServerKey: String?,
        keyPair: SubscriptionKeyPair? = nil
    ) throws(MockWebPushError) -> MockSubscription {
        let subscription: MockSubscription
        do {
            subscription = try MockSubscription.make(
                baseURL: baseURL,
                applicationServerKey: applicationServerKey,
                keyPair: keyPair
            )
        } catch {
            throw MockWebPushError(.invalidConfiguration, "cannot make a subscription: \(error.message)")
        }
        if let directory { try write(subscription, in: directory) }
        hold(subscription)
        return subscription
    }

    /// The subscription of `id`: from memory, else from its file in the directory. Nil when unknown (or its
    /// file is unreadable).
    func subscription(id: String) -> MockSubscription? {
        if let held = table.withLock({ $0[id] }) { return held }
        guard let directory, MockSubscription.isWellFormed(id: id),
            let data = FileManager.default.contents(atPath: Self.path(of: id, in: directory)),
            let file = try? JSONDecoder().decode(MockSubscription.File.self, from: data),
            let keyPair = keyPair(of: file),
            let subscription = try? MockSubscription(id: id, file: file, keyPair: keyPair)
        else { return nil }
        hold(subscription)
        return subscription
    }

    /// The key pair of a subscription file, read once per private key and auth secret; nil when unusable.
    private func keyPair(of file: MockSubscription.File) -> SubscriptionKeyPair? {
        let key = file.privateKey + " " + file.auth
        if let known = keyPairs.withLock({ $0[key] }) { return known }
        guard let keyPair = try? MockSubscription.keyPair(of: file) else { return nil }
        keyPairs.withLock { keyPairs in
            if keyPairs.count >= Self.keyPairLimit { keyPairs.removeAll() }
            keyPairs[key] = keyPair
        }
        return keyPair
    }

    private func hold(_ subscription: MockSubscription) {
        table.withLock { table in
            if table.count >= Self.memoryLimit { table.removeAll() }
            table[subscription.id] = subscription
        }
    }

    private static func path(of id: String, in directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("\(id).json").path
    }

    /// Writes `<id>.json`, readable by its owner only: it holds the private key and the auth secret.
    private func write(_ subscription: MockSubscription, in directory: String) throws(MockWebPushError) {
        let path = Self.path(of: subscription.id, in: directory)
        do {
            try Folder.make(directory)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try SecretFile.write(try encoder.encode(subscription.file), to: path, replacing: true)
        } catch {
            // The folder's or the file's failure names its path; an encoding failure is said with it.
            throw MockWebPushError(.invalidConfiguration, "subscription \(subscription.id): \(error)")
        }
    }
}
