import Foundation
import RelayCLI

/// `push-relay serve | health | mock-apns | mock-fcm | mock-webpush | mock-kafka | send | version |
/// keys new|vapid|user-token | config check | storage copy | storage requery-done |
/// storage end-pending`.
let usage = """
    usage: push-relay <command> [options]

    commands:
      serve        run the relay (HTTP API, outbox dispatcher; in-process mocks when an app has no credentials)
      health       ask the configured relay's /healthz (http or https); exit 0 healthy, 1 not
      mock-apns    run a mock APNs (HTTP/2, Apple's validation, scriptable faults)
      mock-fcm     run a mock FCM HTTP v1 with its OAuth token endpoint (HTTP/2, scriptable answers)
      mock-webpush run a mock Web Push service (HTTP/2, VAPID checks, decrypts and checks each message;
                   --new-subscription prints a subscription for the relay)
      mock-kafka   run librdkafka's mock Kafka cluster with the topics asked for (for kcat and tests)
      send         send one push to APNs, to FCM (--platform android) or to a browser (--platform web), and
                   print the answer as JSON
      version      print the versions of PushRelay and the C libraries it links
      keys new     print a new API key and the SHA-256 to configure
      keys vapid   write a new VAPID key pair for apps[].webPush and print its public key
      keys user-token
                   print a user token (an ES256 JWT signed by a P-256 key), for development
      config check validate and print the effective configuration, secrets redacted
      storage copy copy a relay's data from one store into an empty one (SQLite to PostgreSQL, or back)
      storage requery-done
                   mark an app's Ditto requeryRequired handled after its collections were re-fed
      storage end-pending
                   end the pending deliveries of an app taken out of every relay's configuration

    'push-relay <command> --help' shows a command's options.
    """

// A write to a peer that left must fail with EPIPE, not end the process: set once, for every command.
signal(SIGPIPE, SIG_IGN)

await CommandLineTool.run(name: "push-relay", usage: usage) { command, words in
    switch command {
    case "serve": try await ServeCommand.run(words)
    case "health": try await HealthCommand.run(words)
    case "mock-apns": try await MockAPNsCommand.run(words)
    case "mock-fcm": try await MockFCMCommand.run(words)
    case "mock-webpush": try await MockWebPushCommand.run(words)
    case "mock-kafka": try await MockKafkaCommand.run(words)
    case "send": try await SendCommand.run(words)
    case "version", "--version": try VersionCommand.run(words)
    case "keys": try KeysCommand.run(words)
    case "config": try ConfigCommand.run(words)
    case "storage": try await StorageCommand.run(words)
    default: nil
    }
}
