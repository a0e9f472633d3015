import FluxBus

/// A substance observer whose use of the changes it receives ends on the bus, within the delivery:
/// what lets its substance refill them for a later commit (see `Substance.recycle`).
package protocol ChangesStayOnBus: SubstanceObserver {}
