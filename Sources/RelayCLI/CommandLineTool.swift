import Foundation
import RelayCore
import RelayCrypto

/// What both executables do with their first word: dispatch a subcommand, print the usage for `help`, and
/// turn the outcome into an exit status (0 done, 1 failed or its output lost, 2 a command-line mistake, an
/// unknown command or none).
public enum CommandLineTool {
    /// Runs the subcommand named by the first argument and exits with its status.
    /// - Parameter dispatch: runs `command` with the remaining words; nil when there is no such command.
    ///   An ``Arguments/Problem`` it throws exits 2, any other error 1, each printed on stderr.
    public static func run(
        name: String,
        usage: String,
        dispatch: (_ command: String, _ words: [String]) async throws -> Int32?
    ) async -> Never {
        OpenSSLProcess.keepThroughExit()
        var words = Array(CommandLine.arguments.dropFirst())
        guard !words.isEmpty else {
            printError(usage)
            exit(2)
        }
        let command = words.removeFirst()
        var status: Int32
        if ["help", "--help", "-h"].contains(command) {
            say(usage)
            exit(Console.outputLost.load(ordering: .relaxed) ? 1 : 0)
        }
        do {
            if let done = try await dispatch(command, words) {
                status = done
            } else {
                printError("\(name): unknown command '\(command)'\n\n\(usage)")
                status = 2
            }
        } catch let problem as Arguments.Problem {
            printError("\(name) \(command): \(problem)")
            status = 2
        } catch {
            printError("\(name) \(command): \((error as? any TerminalMessage)?.message ?? "\(error)")")
            status = 1
        }
        // Lines a reader did not take in time are output lost, as a line that could not be written is.
        if !ConsoleLines.shared.drain(within: .seconds(2)) { Console.outputLost.store(true, ordering: .relaxed) }
        if status == 0, Console.outputLost.load(ordering: .relaxed) {
            printError("\(name) \(command): standard output could not be written")
            status = 1
        }
        exit(status)
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.writeLine(line)
    }
}
