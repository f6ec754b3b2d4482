import APNsMock
import Foundation
import RelayCore
import Testing

@Suite struct ProviderTokenTests {
    let time = ManualTimeSource()
    var now: Int { Int(time.now.timeIntervalSince1970) }
    let path = "/3/device/" + MockFixtures.token

    func server() throws -> MockAPNsServer {
        try MockFixtures.start(.init(providerKeys: MockFixtures.providerKeys(), timeSource: time))
    }

    func send(_ client: CurlH2Client, _ authorization: String) -> CurlH2Client.Response {
        client.send(path: path, headers: [MockFixtures.topic, authorization], body: MockFixtures.payload)
    }

    @Test func aTokenOlderThanAnHourIsExpired() throws {
        let server = try server()
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        let token = try MockFixtures.authorization(issuedAt: now)
        #expect(send(client, token).status == 200)
        time.advance(by: .seconds(3601))
        let response = send(client, token)
        #expect(response.status == 403)
        #expect(response.reason == "ExpiredProviderToken")
    }

    @Test func aNewTokenWithinTwentyMinutesIsTooManyUpdates() throws {
        let server = try server()
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client, try MockFixtures.authorization(issuedAt: now)).status == 200)
        time.advance(by: .seconds(60))
        let second = try MockFixtures.authorization(issuedAt: now)
        let refused = send(client, second)
        #expect(refused.status == 429)
        #expect(refused.reason == "TooManyProviderTokenUpdates")
        time.advance(by: .seconds(1200))
        #expect(send(client, second).status == 200)
        // A fresh connection may use any valid token at once.
        #expect(send(CurlH2Client(port: server.port), try MockFixtures.authorization(issuedAt: now - 5)).status == 200)
    }

    @Test func aConnectionIsBoundToTheTeamOfItsFirstToken() throws {
        let server = try server()
        defer { server.stop() }
        let client = CurlH2Client(port: server.port)
        #expect(send(client, try MockFixtures.authorization(issuedAt: now)).status == 200)
        let otherTeam = try MockFixtures.authorization(
            keyId: MockFixtures.keyIdB,
            teamId: MockFixtures.teamB,
            issuedAt: now
        )
        let response = send(client, otherTeam)
        #expect(response.status == 403)
        #expect(response.reason == "Forbidden")
        #expect(send(CurlH2Client(port: server.port), otherTeam).status == 200)
    }

    @Test func aTamperedSignatureIsInvalid() throws {
        let server = try server()
        defer { server.stop() }
        var characters = Array(try MockFixtures.authorization(issuedAt: now))
        // Change a signature character well before the end (the last one carries unused padding bits).
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        let token = String(characters)
        let response = send(CurlH2Client(port: server.port), token)
        #expect(response.status == 403)
        #expect(response.reason == "InvalidProviderToken")
    }

    @Test func aVerifiedClientCertificateNeedsNoProviderToken() throws {
        let server = try MockFixtures.start(
            .init(
                tls: .init(
                    certificatePath: MockFixtures.path("tls/server.pem"),
                    privateKeyPath: MockFixtures.path("tls/server.key"),
                    clientCAPath: MockFixtures.path("tls/ca.pem")
                ),
                timeSource: time
            )
        )
        defer { server.stop() }
        let withCertificate = CurlH2Client(
            port: server.port,
            tls: .init(
                caPath: MockFixtures.path("tls/ca.pem"),
                certificatePath: MockFixtures.path("tls/client.pem"),
                keyPath: MockFixtures.path("tls/client.key")
            )
        )
        let accepted = withCertificate.send(path: path, headers: [], body: MockFixtures.payload)
        #expect(accepted.status == 200)
        let withoutCertificate = CurlH2Client(port: server.port, tls: .init(caPath: MockFixtures.path("tls/ca.pem")))
        let refused = withoutCertificate.send(path: path, headers: [MockFixtures.topic], body: MockFixtures.payload)
        #expect(refused.status == 403)
        #expect(refused.reason == "MissingProviderToken")
    }
}
