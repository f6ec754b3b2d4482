import Foundation
import RelayCLI

/// `push-relay serve | mock-apns | send | version | keys new | config check`.
let usage = """
    usage: push-relay <command> [options]

    commands:
      serve        run the relay (HTTP API, outbox dispatcher; an in-process mock APNs when no app is configured)
      mock-apns    run a mock APNs (HTTP/2, Apple's validation, scriptable faults)
      send         send one push and print APNs' answer as JSON
      version      print the versions of PushRelay and the C libraries it links
      keys new     print a new API key and the SHA-256 to configure
      config check validate and print the effective configuration, secrets redacted

    'push-relay <command> --help' shows a command's options.
    """

var words = Array(CommandLine.arguments.dropFirst())
let command = words.isEmpty ? "help" : words.removeFirst()
let status: Int32
do {
    switch command {
    case "serve": status = try await ServeCommand.run(words)
    case "mock-apns": status = try await MockAPNsCommand.run(words)
    case "send": status = try await SendCommand.run(words)
    case "version", "--version": status = VersionCommand.run()
    case "keys": status = try KeysCommand.run(words)
    case "config": status = try ConfigCommand.run(words)
    case "help", "--help", "-h":
        say(usage)
        status = 0
    default:
        FileHandle.standardError.write(Data("push-relay: unknown command '\(command)'\n\n\(usage)\n".utf8))
        status = 2
    }
} catch let problem as Arguments.Problem {
    FileHandle.standardError.write(Data("push-relay \(command): \(problem)\n".utf8))
    status = 2
} catch {
    FileHandle.standardError.write(Data("push-relay \(command): \(error)\n".utf8))
    status = 1
}
exit(status)
