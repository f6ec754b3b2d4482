import APNsMock
import Foundation
import RelayAPNs
import RelayCore
import RelayCrypto
import RelayPostgres
import RelayTestSupport
import Testing

/// Two relays ("instances") on one PostgreSQL database, each with its own ``ProviderToken`` and its own
/// store connection, present one provider token.
@Suite struct SharedProviderTokenTests {
    /// Two stores (two connections, as two relays) on one new database.
    static func twoStores(time: any TimeSource) async throws -> (PostgresStore, PostgresStore) {
        let url = try await PostgresCluster.shared().newDatabaseURL()
        return (
            try PostgresStore(url: url, logger: .disabled(), timeSource: time),
            try PostgresStore(url: url, logger: .disabled(), timeSource: time)
        )
    }

    static func token(_ store: PostgresStore, _ time: any TimeSource) throws -> ProviderToken {
        try ProviderToken(
            keyPEMOrPath: ProviderTokenTests.keyPath,
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            timeSource: time,
            cache: store
        )
    }

    @Test func twoInstancesPresentOneTokenAndMoveToOneNewTokenAtTheRefreshAge() async throws {
        let time = ManualTimeSource()
        let (storeA, storeB) = try await Self.twoStores(time: time)
        let a = try Self.token(storeA, time)
        let b = try Self.token(storeB, time)
        let first = try await a.current()
        time.advance(by: .seconds(10 * 60))
        // B starts ten minutes later: it takes A's token, aged from its iat.
        #expect(try await b.current() == first)
        #expect(try JSONWebToken(parsing: first).verify(with: try ProviderTokenTests.publicKey()))
        time.advance(by: .seconds(40 * 60))
        // 50 minutes after the iat both renew; B first, concurrently with A.
        async let fromB = b.current()
        async let fromA = a.current()
        let (second, secondA) = try await (fromB, fromA)
        #expect(second != first)
        #expect(secondA == second)
        #expect(try JSONWebToken(parsing: second).claims.iat == Int(time.now.timeIntervalSince1970))
        // Neither minted another for its next pushes.
        time.advance(by: .seconds(49 * 60))
        #expect(try await a.current() == second)
        #expect(try await b.current() == second)
    }

    /// An app or relay whose key file is not the key its ids name stores a token APNs refuses; one with the
    /// right key (another app with the same ids, or the same app once its file is mended) does not take it
    /// but mints and stores its own, which the wrong key's holder in turn does not take.
    @Test func aTokenAnotherKeySignedIsNotTaken() async throws {
        let time = ManualTimeSource()
        let (storeA, storeB) = try await Self.twoStores(time: time)
        let wrongKey = try ES256Key.generate()
        let wrong = try ProviderToken(
            key: wrongKey,
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            timeSource: time,
            cache: storeA
        )
        let refused = try await wrong.current()
        time.advance(by: .seconds(60))
        let right = try await Self.token(storeB, time).current()
        #expect(right != refused)
        #expect(try JSONWebToken(parsing: right).verify(with: try ProviderTokenTests.publicKey()))
        // A fresh wrong-key holder does not take the right key's token either.
        let again = try ProviderToken(
            key: wrongKey,
            keyId: "ABC123DEFG",
            teamId: "TEAM123456",
            timeSource: time,
            cache: storeA
        )
        let theirs = try await again.current()
        #expect(try JSONWebToken(parsing: theirs).verify(with: wrongKey))
    }

    /// The outbox's sends take the token without a wait while it is fresh; one due from the cache starts
    /// the renewal and is nil until it ends, and the renewal's token is then taken without a wait.
    @Test func aTokenDueFromTheCacheIsTakenWithoutAWaitOnceRenewed() async throws {
        let time = ManualTimeSource()
        let (store, _) = try await Self.twoStores(time: time)
        let token = try Self.token(store, time)
        #expect(try token.currentWithoutWaiting() == nil)
        let first = try await token.current()
        #expect(try token.currentWithoutWaiting() == first)
        #expect(token.generation == 1)
        time.advance(by: .seconds(50 * 60))
        #expect(try token.currentWithoutWaiting() == nil)
        let second = try await token.current()
        #expect(second != first)
        #expect(try token.currentWithoutWaiting() == second)
        #expect(token.generation == 2)
    }

    @Test func manyInstancesRenewingAtOnceMintOneToken() async throws {
        let time = ManualTimeSource()
        let url = try await PostgresCluster.shared().newDatabaseURL()
        let stores = try (0..<6).map { _ in try PostgresStore(url: url, logger: .disabled(), timeSource: time) }
        let tokens = try stores.map { try Self.token($0, time) }
        let presented = try await withThrowingTaskGroup(of: String.self) { group in
            for token in tokens { group.addTask { try await token.current() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(presented.count == 1)
    }

    @Test func anInvalidationHonouredByOneInstanceIsSeenByTheOther() async throws {
        let time = ManualTimeSource()
        let (storeA, storeB) = try await Self.twoStores(time: time)
        let a = try Self.token(storeA, time)
        let b = try Self.token(storeB, time)
        let first = try await a.current()
        time.advance(by: .seconds(5 * 60))
        #expect(try await b.current() == first)
        time.advance(by: .seconds(16 * 60))
        // 21 minutes after the iat (B got it 16 minutes ago): both honour an ExpiredProviderToken.
        #expect(a.invalidate())
        let second = try await a.current()
        #expect(second != first)
        #expect(b.invalidate())
        #expect(try await b.current() == second)
        #expect(try await a.current() == second)
    }

    @Test func anInvalidationWithin20MinutesOfTheIatIsIgnoredByAnInstanceThatJoinedLater() async throws {
        let time = ManualTimeSource()
        let (storeA, storeB) = try await Self.twoStores(time: time)
        let first = try await Self.token(storeA, time).current()
        time.advance(by: .seconds(15 * 60))
        let b = try Self.token(storeB, time)
        #expect(try await b.current() == first)
        time.advance(by: .seconds(4 * 60))
        // 19 minutes since the iat, though B has had the token only 4: still too young to replace.
        #expect(b.invalidate() == false)
        #expect(try await b.current() == first)
    }

    @Test func twoClientsOnTwoStoresOfOneDatabaseSendWithOneToken() async throws {
        let time = SystemTimeSource()
        let (storeA, storeB) = try await Self.twoStores(time: time)
        let mock = try APNsClientMockTests.startMock()
        defer { mock.stop() }
        let clients = try [storeA, storeB].map {
            try APNsClientMockTests.client(mock, authentication: .providerToken(try Self.token($0, time)))
        }
        for (index, client) in clients.enumerated() {
            #expect(try await client.send(APNsClientMockTests.notification(index)).isAccepted)
        }
        for client in clients { await client.shutdown() }
        let requests = try await mock.waitForRequests(count: 2)
        let presented = Set(requests.compactMap { $0.headers.first { $0.name == "authorization" }?.value })
        #expect(presented.count == 1)
        #expect(requests.allSatisfy { $0.status == 200 })
        #expect(Set(requests.map(\.connectionId)).count == 2)
    }
}
