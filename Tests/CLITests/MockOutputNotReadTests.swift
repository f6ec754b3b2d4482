import Foundation
import RelayTestSupport
import Testing

/// A mock whose standard output a parent captures but does not read goes on answering: its line per request
/// waits on a thread of its own (``RelayCLI/ConsoleLines``), not on the server's, so a full pipe stalls no
/// request; the lines come out, in order, once the parent reads.
@Suite struct MockOutputNotReadTests {
    @Test(.timeLimit(.minutes(3))) func aMockAnswersWhileNobodyReadsItsOutput() async throws {
        let (mock, reader, port) = try Self.startMock()
        defer { if mock.isRunning { mock.terminate() } }

        // 2,000 refusals make about 300 kB of lines, several times a pipe's 64 kB buffer; none is read.
        let (status, report) = try Self.refusals(port: port)
        #expect(status == 0, "h2load: \(report)")
        #expect(report.contains("2000 done"), "\(report)")

        mock.terminate()
        let rest = String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self)
        mock.waitUntilExit()
        let lines = rest.split(separator: "\n")
        #expect(lines.count == 2001, "\(lines.suffix(3))")
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("mock APNs refused status=405 ") })
        #expect(lines.last == "mock APNs stopped after 2000 request(s)")
        #expect(mock.terminationStatus == 0)
    }

    /// Stopped while its lines still wait for a reader that never reads, a mock exits within its 2 s drain,
    /// and with 1: its output was lost.
    @Test(.timeLimit(.minutes(3))) func aMockStoppedWithLinesUnreadExitsOne() async throws {
        let (mock, _, port) = try Self.startMock()
        defer { if mock.isRunning { mock.terminate() } }
        #expect(try Self.refusals(port: port).status == 0)
        mock.terminate()
        mock.waitUntilExit()
        #expect(mock.terminationReason == .exit && mock.terminationStatus == 1, "\(mock.terminationStatus)")
    }

    /// `push-relay mock-apns` (h2c, no key: every request refused) with its standard output a pipe, once it
    /// said where it listens: the process, the pipe's read end (not read further) and the port.
    static func startMock() throws -> (Process, FileHandle, Int) {
        let mock = Process()
        mock.executableURL = try pushRelayBinary()
        mock.arguments = ["mock-apns", "--port", "0", "--h2c"]
        let output = Pipe()
        mock.standardOutput = output
        mock.standardError = FileHandle.nullDevice
        try mock.run()
        let reader = output.fileHandleForReading
        var first = Data()
        while !first.contains(0x0A), let chunk = try reader.read(upToCount: 1), !chunk.isEmpty { first += chunk }
        let address = String(decoding: first, as: UTF8.self)
        let port = try #require(
            address.split(separator: " ").dropFirst(4).first.flatMap { URL(string: String($0))?.port }
        )
        return (mock, reader, port)
    }

    /// 2,000 requests to the mock on `port`, one at a time, by h2load (killed after 60 s): its exit status
    /// and report.
    static func refusals(port: Int) throws -> (status: Int32, report: String) {
        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        load.arguments = [
            "-s", "KILL", "60", "h2load", "-n", "2000", "-c", "1", "-m", "1", "http://127.0.0.1:\(port)/3/device/ab",
        ]
        let output = Pipe()
        load.standardOutput = output
        try load.run()
        let report = String(decoding: try output.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        load.waitUntilExit()
        return (load.terminationStatus, report)
    }
}
