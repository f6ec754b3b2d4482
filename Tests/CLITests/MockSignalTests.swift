import Foundation
import RelayTestSupport
import Testing

/// The mock commands run a one-service group: each stopping signal, sent to the real process, stops it
/// gracefully (its closing line printed, exit 0) and logs nothing on an ordinary stop.
@Suite struct MockSignalTests {
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP]) func aMockStopsGracefullyOnEachStoppingSignal(
        number: Int32
    )
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let mock = try RelayProcess(
            ["mock-apns", "--port", "0", "--h2c", "--no-auth", "--quiet"],
            outputIn: directory.url,
            name: "mock"
        )
        _ = try await mock.line(startingWith: "mock APNs listening on ")
        mock.signal(number)
        let exit = try await mock.exitStatus()
        #expect(exit.exited && exit.status == 0, "\(exit)\n\(mock.stderr)")
        #expect(mock.stdoutLines.last == "mock APNs stopped after 0 request(s)", "\(mock.stdout)")
        #expect(mock.stderr.isEmpty, "\(mock.stderr)")
    }
}
