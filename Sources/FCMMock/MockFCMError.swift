import MockHTTP2

/// Why the mock FCM could not start, load a script, or wait.
public typealias MockFCMError = MockServerError
