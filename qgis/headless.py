"""A QGIS application without a window, with Processing and the traverse
provider loaded from PLUGINS (the source tree's qgis/ or a profile's
python/plugins): what qgis/make_pipeline_model.py and
tests/qgis_provider_check.py both start from. Needs QT_QPA_PLATFORM=offscreen
when there is no display."""
import sys

from qgis.core import QgsApplication


def start_qgis(plugins):
    """(app, plugin): the running application and the traverse plugin, its
    provider registered."""
    app = QgsApplication([], False)
    app.setPrefixPath("/usr", True)
    app.initQgis()
    sys.path[:0] = ["/usr/share/qgis/python/plugins", plugins]
    from processing.core.Processing import Processing
    Processing.initialize()
    import traverse
    plugin = traverse.classFactory(None)
    plugin.initProcessing()
    return app, plugin
