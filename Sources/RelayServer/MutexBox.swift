import Synchronization

/// A value behind a `Mutex`, usable as a stored property of a `Sendable` final class.
final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func set(_ value: Value) { mutex.withLock { $0 = value } }
    func get() -> Value { mutex.withLock { $0 } }
}

extension MutexBox {
    /// Takes the value out, leaving nil.
    func take<Wrapped>() -> Value where Value == Wrapped? {
        mutex.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
