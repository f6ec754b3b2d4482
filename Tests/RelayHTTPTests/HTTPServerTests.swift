import Foundation
import RelayCore
import RelayHTTP
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real sockets on port 0 through URLSession (libcurl) and a raw client.
@Suite struct HTTPServerTests {
    struct Member: Codable {
        var userId: String
        var rooms: [String]
    }

    struct Boom: Error, CustomStringConvertible {
        var description: String { "secret connection string postgres://u:pw@db" }
    }

    static func router() -> Router {
        var router = Router()
        router.get("/hello", query: ["name"]) { request, _ in .text("hello \(request.query["name"] ?? "")") }
        router.put("/v1/devices/{token}") { request, parameters in
            try .json(["token": parameters["token"] ?? "", "remote": request.remoteAddress, "id": request.id])
        }
        router.post("/v1/members") { request, _ in try .json(status: 201, try request.decode(Member.self)) }
        router.post("/boom") { _, _ in throw Boom() }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(5))
            return .text("slow")
        }
        router.delete("/v1/devices/{token}") { _, _ in .noContent }
        return router
    }

    @Test func answersARoutedRequestWithARequestID() async throws {
        try await withServer(handler: Self.router().handler) { server in
            #expect(server.port > 0)
            let response = try await send("GET", server.port, "/hello?name=a%20b")
            #expect(response.status == 200)
            #expect(response.text == "hello a b")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.header("X-Request-Id")?.count == 32)
            let echoed = try await send("GET", server.port, "/hello", headers: ["X-Request-Id": "trace-42.a_b:c"])
            #expect(echoed.header("X-Request-Id") == "trace-42.a_b:c")
            let replaced = try await send("GET", server.port, "/hello", headers: ["X-Request-Id": "{\"evil\":1}"])
            #expect(replaced.header("X-Request-Id")?.count == 32)
            let empty = try await send("DELETE", server.port, "/v1/devices/abc")
            #expect(empty.status == 204)
            #expect(empty.body.isEmpty)
        }
    }

    @Test func errorsCrossTheWireAsJSON() async throws {
        try await withServer(handler: Self.router().handler) { server in
            let notFound = try await send("GET", server.port, "/missing")
            #expect(notFound.status == 404)
            #expect(notFound.errorCode == "not_found")
            #expect(notFound.header("Content-Type") == "application/json")
            #expect(notFound.header("X-Request-Id") != nil)

            let notAllowed = try await send("POST", server.port, "/v1/devices/abc", body: Data("{}".utf8))
            #expect(notAllowed.status == 405)
            #expect(notAllowed.errorCode == "method_not_allowed")
            #expect(notAllowed.header("Allow") == "PUT, DELETE")

            let boom = try await send("POST", server.port, "/boom")
            #expect(boom.status == 500)
            #expect(boom.errorCode == "internal_error")
            #expect(!boom.text.contains("postgres"))

            let wrongType = try await send(
                "POST",
                server.port,
                "/v1/members",
                headers: ["Content-Type": "text/plain"],
                body: Data(#"{"userId":"u","rooms":[]}"#.utf8)
            )
            #expect(wrongType.status == 415)
            #expect(wrongType.errorCode == "unsupported_media_type")

            let missing = try await send(
                "POST",
                server.port,
                "/v1/members",
                headers: ["Content-Type": "application/json"],
                body: Data(#"{"rooms":["a"]}"#.utf8)
            )
            #expect(missing.status == 400)
            #expect(missing.errorCode == "missing_field")
            #expect(missing.errorMessage == "userId is required")
        }
    }

    @Test func decodesJSONAndPercentDecodesPathParameters() async throws {
        try await withServer(handler: Self.router().handler) { server in
            let created = try await send(
                "POST",
                server.port,
                "/v1/members",
                headers: ["Content-Type": "application/json"],
                body: Data(#"{"userId":"u1","rooms":["r/1"]}"#.utf8)
            )
            #expect(created.status == 201)
            #expect(created.text == #"{"rooms":["r/1"],"userId":"u1"}"#)

            let device = try await send("PUT", server.port, "/v1/devices/a%2Fb%20c", body: Data())
            #expect(device.status == 200)
            let object = try JSONSerialization.jsonObject(with: device.body) as? [String: String]
            #expect(object?["token"] == "a/b c")
            #expect(object?["remote"] == "127.0.0.1")
            #expect(object?["id"] == device.header("X-Request-Id"))
        }
    }

    @Test func answersManyConcurrentRequestsWhoseHandlersAwait() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 32
        let session = URLSession(configuration: configuration)
        try await withServer(handler: Self.router().handler) { server in
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        let response = try await send("GET", server.port, "/slow", session: session)
                        return response.status == 200 && response.text == "slow" ? response.header("X-Request-Id") : nil
                    }
                }
                var ids: [String?] = []
                for try await id in group { ids.append(id) }
                return ids
            }
            #expect(ids.count == 200)
            #expect(Set(ids.compactMap { $0 }).count == 200)
        }
        session.finishTasksAndInvalidate()
    }

    @Test(arguments: [1, 3])
    func immediateHandlersOnManyKeepAliveConnections(threads: Int) async throws {
        try await withServer(configure: { $0.threadCount = threads }, handler: { request in .text(request.path) }) {
            server in
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for client in 0..<20 {
                    group.addTask {
                        let connection = try RawConnection(port: server.port)
                        for index in 0..<25 {
                            await connection.write("GET /c\(client)/r\(index) HTTP/1.1\r\nHost: t\r\n\r\n")
                            let raw = await connection.read(until: "/c\(client)/r\(index)")
                            guard statusCode(raw) == 200 else { return false }
                        }
                        return true
                    }
                }
                var results: [Bool] = []
                for try await ok in group { results.append(ok) }
                return results
            }
            #expect(results == Array(repeating: true, count: 20))
        }
    }

    @Test func keepsAConnectionAliveAcrossRequests() async throws {
        try await withServer(handler: Self.router().handler) { server in
            let connection = try RawConnection(port: server.port)
            await connection.write("GET /hello?name=one HTTP/1.1\r\nHost: t\r\n\r\n")
            let first = await connection.read(until: "hello one")
            #expect(statusCode(first) == 200)
            await connection.write("GET /hello?name=two HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let second = await connection.read()
            #expect(statusCode(second) == 200)
            #expect(second.hasSuffix("hello two"))
        }
    }

    @Test func reportsEachResponseToTheAccessLogHook() async throws {
        let entries = Mutex<[AccessLogEntry]>([])
        try await withServer(
            onResponse: { entry in entries.withLock { $0.append(entry) } },
            handler: Self.router().handler
        ) {
            server in
            let ok = try await send("PUT", server.port, "/v1/devices/tok", body: Data())
            _ = try await send("GET", server.port, "/missing")
            let logged = entries.withLock { $0 }
            #expect(logged.count == 2)
            let first = try #require(logged.first)
            #expect(first.route == "/v1/devices/{token}")
            #expect(first.method == "PUT")
            #expect(first.path == "/v1/devices/tok")
            #expect(first.status == 200)
            #expect(first.requestID == ok.header("X-Request-Id"))
            #expect(first.durationMilliseconds >= 0)
            #expect(first.remoteAddress == "127.0.0.1")
            #expect(logged.last?.route == nil)
            #expect(logged.last?.status == 404)
        }
    }

    @Test func shutdownLetsARunningHandlerFinish() async throws {
        let started = Mutex(false)
        let server = HTTPServer(
            configuration: Self.configuration(grace: 10),
            handler: { _ in
                started.withLock { $0 = true }
                try? await Task.sleep(for: .milliseconds(200))
                return .text("finished")
            },
            logger: .disabled()
        )
        try server.start()
        let port = server.port
        let connection = try RawConnection(port: port)
        await connection.write("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        async let answer = connection.read(until: "finished")
        await server.shutdown()
        let raw = await answer
        #expect(statusCode(raw) == 200)
        #expect(raw.lowercased().contains("connection: close"))
        #expect(server.port == 0)
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
    }

    @Test func shutdownAnswersAHandlerThatOutlivesTheGracePeriodWith503() async throws {
        let started = Mutex(false)
        // The handler ends only when the test lets it, after the answer is read: however slow the machine,
        // it cannot finish inside the grace period.
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let server = HTTPServer(
            configuration: Self.configuration(grace: 0.1),
            handler: { _ in
                started.withLock { $0 = true }
                for await _ in release {}
                return .text("too late")
            },
            logger: .disabled()
        )
        try server.start()
        let connection = try RawConnection(port: server.port)
        await connection.write("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(2)) }
        async let answer = connection.read()
        await server.shutdown()
        let raw = await answer
        releaser.finish()
        #expect(statusCode(raw) == 503)
        #expect(!raw.contains("too late"))
    }

    @Test func shutdownWithIdleKeepAliveConnectionsAndRepeatedCalls() async throws {
        let server = HTTPServer(
            configuration: Self.configuration(grace: 5),
            handler: Self.router().handler,
            logger: .disabled()
        )
        try server.start()
        let idle = try RawConnection(port: server.port)
        await idle.write("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(statusCode(await idle.read(until: "hello ")) == 200)
        async let again: Void = server.shutdown()
        await server.shutdown()
        await again
        #expect(await idle.readsEndOfStream())
        await server.shutdown()
    }

    @Test func runServesUntilCancelled() async throws {
        let server = HTTPServer(
            configuration: Self.configuration(grace: 1),
            handler: Self.router().handler,
            logger: .disabled()
        )
        let task = Task { try await server.run() }
        while server.port == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let port = server.port
        #expect(try await send("GET", port, "/hello").status == 200)
        task.cancel()
        try await task.value
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
    }

    /// Cancelling ``HTTPServer/run()`` asks for the graceful stop: a handler running then still answers.
    @Test func runLetsARunningHandlerFinishWhenCancelled() async throws {
        let started = OneShotEvent()
        let release = OneShotEvent()
        let server = HTTPServer(
            configuration: Self.configuration(grace: 60),
            handler: { _ in
                started.signal()
                await Task { await release.wait() }.value  // not cut short by the server's stop
                return .text("finished")
            },
            logger: .disabled()
        )
        let task = Task { try await server.run() }
        while server.port == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let port = server.port
        let connection = try RawConnection(port: port)
        await connection.write("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
        await started.wait()
        async let answer = connection.read(until: "finished")
        task.cancel()
        // Time for a stop that ignored the handler to answer it 503; the grace period is far longer.
        try await Task.sleep(for: .milliseconds(300))
        release.signal()
        let raw = await answer
        #expect(statusCode(raw) == 200)
        #expect(raw.lowercased().contains("connection: close"))
        try await task.value
        #expect(throws: (any Error).self) { try RawConnection(port: port) }
    }

    @Test func configurationDecodesPartialJSONOverDefaults() throws {
        let json = Data(#"{"port":9000,"maxConnectionsPerAddress":4,"headerTimeout":3}"#.utf8)
        let configuration = try JSONDecoder().decode(HTTPServerConfiguration.self, from: json)
        var expected = HTTPServerConfiguration()
        expected.port = 9000
        expected.maxConnectionsPerAddress = 4
        expected.headerTimeout = 3
        #expect(configuration == expected)
        #expect(configuration.validate().isEmpty)
        // A server made directly is held to the relay configuration's ranges: libmicrohttpd reads its idle
        // timeout as 32 bits, where 2^32 + 1 seconds is one.
        var wrapping = configuration
        wrapping.connectionTimeout = 4_294_967_297
        wrapping.maxConnectionsPerPrefix = 0
        #expect(
            wrapping.validate() == [
                "http.connectionTimeout must be 1...86400 (seconds)",
                "http.maxConnectionsPerPrefix must be 1...1000000 when set",
            ]
        )
    }

    @Test func startFailsCleanly() async throws {
        var bad = HTTPServerConfiguration()
        bad.maxBodyBytes = 0
        bad.connectionTimeout = -1
        let invalid = HTTPServer(configuration: bad, handler: { _ in .noContent }, logger: .disabled())
        let error = try #require(throws: HTTPServerError.self) { try invalid.start() }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("maxBodyBytes") && error.message.contains("connectionTimeout"))

        let first = HTTPServer(
            configuration: Self.configuration(grace: 1),
            handler: { _ in .noContent },
            logger: .disabled()
        )
        try first.start()
        var same = Self.configuration(grace: 1)
        same.port = first.port
        let second = HTTPServer(configuration: same, handler: { _ in .noContent }, logger: .disabled())
        let inUse = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(inUse.code == .start && inUse.message.contains("Address already in use"), "\(inUse)")
        #expect(throws: HTTPServerError.self) { try first.start() }
        await first.shutdown()
        await second.shutdown()
    }

    static func configuration(grace: Double) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.shutdownGracePeriod = grace
        return configuration
    }
}
