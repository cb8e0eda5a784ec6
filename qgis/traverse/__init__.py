"""traverse: the trv-* tools in the QGIS Processing toolbox (provider id 'traverse')."""


def classFactory(iface):
    from .plugin import TraversePlugin
    return TraversePlugin(iface)
