// The friendly API: `import FlaskAPI` brings every Flask module.
@_exported import Archive
@_exported import FluxBus
@_exported import Reactors
@_exported import Substances
