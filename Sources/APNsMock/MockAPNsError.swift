import MockHTTP2

/// Why the mock APNs server could not start, load a script, or wait.
public typealias MockAPNsError = MockServerError
