import APNsMock
import Foundation
import RelayCore
import Testing

/// Frame-level behaviour seen through ``H2Probe``: stream limits, GOAWAY, RST_STREAM.
@Suite struct FrameTests {
    let path = "/3/device/" + MockFixtures.token
    let topic = ("apns-topic", "com.example.chat")

    @Test func tokenAuthAdvertisesOneStreamUntilAValidRequestSucceeded() throws {
        let time = ManualTimeSource()
        let server = try MockFixtures.start(.init(providerKeys: MockFixtures.providerKeys(), timeSource: time))
        defer { server.stop() }
        let probe = try H2Probe(port: server.port)
        let unauthenticated = probe.post(path: path, headers: [topic], body: MockFixtures.payload)
        probe.pump { probe.statuses[unauthenticated] != nil }
        #expect(probe.statuses[unauthenticated] == 403)
        #expect(probe.maxConcurrentStreams == [1])
        let jwt = try MockFixtures.authorization(issuedAt: Int(time.now.timeIntervalSince1970))
            .dropFirst("authorization: ".count)
        let valid = probe.post(
            path: path,
            headers: [topic, ("authorization", String(jwt))],
            body: MockFixtures.payload
        )
        probe.pump { probe.statuses[valid] != nil && probe.maxConcurrentStreams.count == 2 }
        #expect(probe.statuses[valid] == 200)
        #expect(probe.maxConcurrentStreams == [1, 1000])
    }

    /// The connection window lets a client keep the granted thousand streams' bodies in flight, not only
    /// the 65,535 bytes HTTP/2 starts with.
    @Test func theConnectionWindowHoldsAThousandBodies() throws {
        let server = try MockFixtures.start(.init(authentication: .disabled))
        defer { server.stop() }
        let probe = try H2Probe(port: server.port)
        let stream = probe.post(path: path, headers: [topic], body: MockFixtures.payload)
        probe.pump { probe.statuses[stream] != nil }
        #expect(probe.statuses[stream] == 200)
        #expect(probe.connectionSendWindow >= 1000 * 4096)
    }

    @Test func withoutTokenAuthTheConfiguredLimitComesFirstAndAScriptLowersIt() throws {
        let server = try MockFixtures.start(
            .init(
                authentication: .disabled,
                maxConcurrentStreams: 250,
                script: MockScript(connections: [
                    .init(connection: .all, maxConcurrentStreams: .init(value: 3, afterRequests: 1))
                ])
            )
        )
        defer { server.stop() }
        let probe = try H2Probe(port: server.port)
        let stream = probe.post(path: path, headers: [topic], body: MockFixtures.payload)
        probe.pump { probe.statuses[stream] != nil && probe.maxConcurrentStreams.count == 2 }
        #expect(probe.maxConcurrentStreams == [250, 3])
    }

    @Test func goAwayCarriesTheLastStreamAndAReasonThenTheConnectionEndsWithoutAReset() throws {
        let server = try MockFixtures.start(
            .init(
                authentication: .disabled,
                script: MockScript(connections: [
                    .init(connection: .next, goAway: .init(afterRequests: 1, reason: "Shutdown"))
                ])
            )
        )
        defer { server.stop() }
        let probe = try H2Probe(port: server.port)
        let first = probe.post(path: path, headers: [topic], body: MockFixtures.payload)
        probe.pump { false }
        #expect(probe.statuses[first] == 200)
        #expect(probe.goAways.count == 1)
        #expect(probe.goAways.first?.lastStreamId == first)
        #expect(probe.goAways.first?.errorCode == 0)
        #expect(probe.goAways.first?.debugData == #"{"reason":"Shutdown"}"#)
        #expect(probe.connectionClosed && !probe.connectionReset)
        // A frame the client wrote before it read the GOAWAY and the end of stream: a server that closed its
        // socket at once would answer it with a TCP reset, failing the client's next write (libcurl: "Send
        // failure: Broken pipe") and possibly discarding the answers it had not read yet.
        probe.ping()
        #expect(!probe.sawReset(within: .seconds(1)))
    }

    @Test func theSecondRequestIsRefusedWithRefusedStream() throws {
        let server = try MockFixtures.start(
            .init(
                authentication: .disabled,
                script: MockScript(connections: [.init(connection: .all, refuseRequests: [2])])
            )
        )
        defer { server.stop() }
        let probe = try H2Probe(port: server.port)
        let streams = (0..<3).map { _ in probe.post(path: path, headers: [topic], body: MockFixtures.payload) }
        probe.pump { streams.allSatisfy { probe.closedStreams.contains($0) } }
        #expect(probe.statuses[streams[0]] == 200)
        #expect(probe.resets[streams[1]] == 7)  // REFUSED_STREAM, RFC 9113 §7
        #expect(probe.statuses[streams[1]] == nil)
        #expect(probe.statuses[streams[2]] == 200)
        #expect(server.answeredCount == 2)
    }
}
