/// What the generic ``MockServer`` reads of a service's configuration (`MockAPNsConfiguration`,
/// `MockFCMConfiguration`): where it listens, its stream limit, the script at start, and how it records.
package protocol MockServerSettings<Script, Record>: Sendable {
    associatedtype Script: Sendable
    associatedtype Record: Sendable
    /// Address to listen on (numeric IPv4/IPv6 or a name `getaddrinfo` resolves).
    var host: String { get }
    /// TCP port; 0 picks an ephemeral port.
    var port: Int { get }
    /// TLS settings, or nil for cleartext h2c.
    var tls: ServerTLS? { get }
    /// SETTINGS_MAX_CONCURRENT_STREAMS advertised (once granted; see ``MockService/grantsStreamsAtStart(on:)``).
    var maxConcurrentStreams: Int { get }
    /// Keep answered requests in memory for ``MockServer/requests``.
    var recordInMemory: Bool { get }
    /// At most this many requests are kept in memory; older ones are dropped first.
    var maxRecordedRequests: Int { get }
    /// When set, each answered request is appended to this file as one JSON line.
    var recordFile: String? { get }
    /// Script in force at start.
    var script: Script { get }
    /// Called on the server's thread for every accepted request, after recording.
    var onAccepted: (@Sendable (Record) -> Void)? { get }
    /// Called on the server's thread for every request answered otherwise, after recording.
    var onRefused: (@Sendable (Record) -> Void)? { get }
    /// What else makes the configuration unusable, if anything (checked by ``MockServer/start()``).
    var serviceProblem: String? { get }
}

extension MockServerSettings {
    package var serviceProblem: String? { nil }
    package var onRefused: (@Sendable (Record) -> Void)? { nil }
}
