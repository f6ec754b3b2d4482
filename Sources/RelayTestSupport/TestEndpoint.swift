import Foundation
import RelayCore
import RelayHTTP
import Synchronization

/// A real HTTP server on 127.0.0.1 (port 0) standing in for a JWKS URL, an auth webhook or Ditto's HTTP API: it answers
/// with what ``answer(_:)`` last set and counts the requests it got.
public final class TestEndpoint: Sendable {
    public typealias Answer = @Sendable (HTTPRequest) async -> HTTPResponse

    /// What the server's handler and the test share.
    private final class State: Sendable {
        let value: Mutex<(answer: Answer, requests: [HTTPRequest])>
        init(_ answer: @escaping Answer) { value = Mutex((answer, [])) }
    }

    private let state: State
    private let server: HTTPServer

    public init(_ answer: @escaping Answer) throws {
        let state = State(answer)
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.shutdownGracePeriod = 0.2
        server = HTTPServer(
            configuration: configuration,
            handler: { request in
                let answer = state.value.withLock { state in
                    state.requests.append(request)
                    return state.answer
                }
                return await answer(request)
            },
            logger: .disabled()
        )
        self.state = state
        try server.start()
    }

    /// `http://127.0.0.1:<port>/<path>`.
    public func url(_ path: String = "auth") -> String { "http://127.0.0.1:\(server.port)/\(path)" }

    /// Answers every request from now on with `answer`.
    public func answer(_ answer: @escaping Answer) { state.value.withLock { $0.answer = answer } }

    /// The requests received so far.
    public var requests: [HTTPRequest] { state.value.withLock { $0.requests } }
    public var calls: Int { requests.count }

    public func stop() async { await server.shutdown() }

    /// A JSON answer.
    public static func json(_ object: [String: Any], status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [("content-type", "application/json")],
            body: try! JSONSerialization.data(withJSONObject: object)
        )
    }

    /// A URL on 127.0.0.1 where nothing listens (a server's port after it stopped).
    public static func closedURL() async throws -> String {
        let endpoint = try TestEndpoint { _ in HTTPResponse(status: 204) }
        let url = endpoint.url()
        await endpoint.stop()
        return url
    }
}

/// Runs `body` with a started endpoint and always stops it.
public func withEndpoint<T>(
    _ answer: @escaping TestEndpoint.Answer,
    _ body: (TestEndpoint) async throws -> T
) async throws -> T {
    let endpoint = try TestEndpoint(answer)
    do {
        let result = try await body(endpoint)
        await endpoint.stop()
        return result
    } catch {
        await endpoint.stop()
        throw error
    }
}
