import FlaskLocking

/// An object as an observer remembers it once the bus's holds keep it (see ``FluxOwnerHolds``):
/// `object` may be used, unretained, while the holds' epoch is `epoch`, the one it was held in
/// (``FluxOwnerHolds/object(in:)`` tells).
struct FluxHeldOwner {
    let object: Unretained<AnyObject>?
    let epoch: UInt64

    /// Nothing held yet (epochs start at one).
    init() {
        self.init(object: nil, epoch: 0)
    }

    init(object: Unretained<AnyObject>?, epoch: UInt64) {
        self.object = object
        self.epoch = epoch
    }
}
