"""One Processing algorithm per table of tools.py: the parameters from the
table, the command line from the parameters, the run through runner.py,
the layers the tool wrote added to the project with their styles."""
import glob
import os

from qgis.core import (
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProcessingLayerPostProcessorInterface,
    QgsProcessingUtils,
)

from . import runner
from .params import Folder, FolderOut, Output, RasterOut, Stdout


class SidecarStyle(QgsProcessingLayerPostProcessorInterface):
    """Gives a layer the style the tool wrote for it: the .qml beside the
    file (slope.qml for slope.tif, route.qml for route.geojson), or for a
    GeoPackage layer the one in its layer_styles table. Processing loads
    result layers without their default style, so this is needed (checked by
    tests/qgis_provider_check.py). Layers without one (class rasters with
    their colour table) keep the renderer QGIS chose."""

    # the context keeps a bare pointer to a post-processor: hold a reference
    # for each layer source until the next run replaces it
    held = {}

    @classmethod
    def for_source(cls, source):
        cls.held[source] = cls()
        return cls.held[source]

    def postProcessLayer(self, layer, context, feedback):
        message, ok = layer.loadDefaultStyle()
        if ok:
            layer.triggerRepaint()
        if feedback:
            feedback.pushDebugInfo("%s: style %s" % (layer.name(), "loaded" if ok else "none (%s)" % message))


class TraverseAlgorithm(QgsProcessingAlgorithm):
    def __init__(self, tool):
        super().__init__()
        self.tool = tool

    def createInstance(self):
        return TraverseAlgorithm(self.tool)

    def name(self):
        return self.tool.name

    def displayName(self):
        return self.tool.title

    def group(self):
        return self.tool.group

    def groupId(self):
        return self.tool.group.lower().replace(" ", "")

    def shortHelpString(self):
        return self.tool.help()

    def shortDescription(self):
        return self.tool.summary.split(". ")[0]

    def initAlgorithm(self, config=None):
        for p in self.tool.params:
            self.addParameter(p.definition())
        for o in self.tool.outputs:
            if o.output:
                self.addOutput(o.definition())

    def srs_param(self, name):
        return next(p for p in self.tool.params if p.name == name)

    def processAlgorithm(self, parameters, context, feedback):
        feedback = feedback or QgsProcessingFeedback()
        exe = runner.locate(self.tool.exe)
        args = []
        for p in self.tool.params:
            args += p.args(self, parameters, context)
        out_dirs = [d for p in self.tool.params for d in p.out_dirs(self, parameters, context)]
        # the folders of output files, made if missing (a tool's output folder it makes itself)
        make_dirs = [d for p in self.tool.params if isinstance(p, Output) and not isinstance(p, FolderOut)
                     for d in p.out_dirs(self, parameters, context)]
        stdout = next((p for p in self.tool.params if isinstance(p, Stdout)), None)
        stdout_path = stdout.path(self, parameters, context) if stdout else ""
        runner.run([exe] + args, feedback, out_dirs, make_dirs, stdout_path or None)

        results = dict(r for r in (p.result(self, parameters, context) for p in self.tool.params) if r)
        for o in self.tool.outputs:
            base = results.get(o.base) or self.parameterAsString(parameters, o.base, context)
            if isinstance(o, Folder):
                results[o.output] = base
            else:
                self.add_layers(o, base, results, context)
        return results

    def add_layers(self, o, base, results, context):
        """The layers of output o: in the results (declared outputs), and in
        the project when the run ends, styled."""
        if not base:
            return
        files = sorted(glob.glob(os.path.join(base, o.file))) if o.file else [base]
        for f in files:
            source = "%s|layername=%s" % (f, o.layer) if o.layer else f
            if o.output and o.output not in results:
                results[o.output] = source
            if context.willLoadLayerOnCompletion(source):
                # a destination the user asked to open: QGIS loads it, we style it
                context.layerToLoadOnCompletionDetails(source).setPostProcessor(SidecarStyle.for_source(source))
            elif not self.is_destination(o.base) and context.project() is not None:
                name = o.layer_name(f)
                hint = QgsProcessingUtils.LayerHint.Vector if o.vector else QgsProcessingUtils.LayerHint.Raster
                details = QgsProcessingContext.LayerDetails(name, context.project(), o.output or "", hint)
                details.setPostProcessor(SidecarStyle.for_source(source))
                context.addLayerToLoadOnCompletion(source, details)

    def is_destination(self, name):
        """A raster destination: QGIS itself loads it if the user asked."""
        return any(p.name == name and isinstance(p, RasterOut) for p in self.tool.params)

