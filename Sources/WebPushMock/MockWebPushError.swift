import MockHTTP2

/// Why the mock Web Push service could not start, load a script, make or read a subscription, or wait.
public typealias MockWebPushError = MockServerError
