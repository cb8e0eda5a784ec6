"""The traverse Processing provider: an algorithm per tool table, the
pipeline model, and the setting 'traverse folder'."""
import glob
import os

from qgis.core import QgsProcessingModelAlgorithm, QgsProcessingProvider

from processing.core.ProcessingConfig import ProcessingConfig, Setting

from .algorithm import TraverseAlgorithm
from .runner import FOLDER_SETTING
from .tools import TOOLS

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


class TraverseProvider(QgsProcessingProvider):
    def id(self):
        return "traverse"

    def name(self):
        return "traverse"

    def longName(self):
        return "traverse: off-road mobility planning"

    def load(self):
        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(Setting(
            self.name(), FOLDER_SETTING, "traverse folder (the trv-* tools; empty: the PATH, then bin/ of the "
            "source tree the plugin runs from)", "", valuetype=Setting.FOLDER))
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        ProcessingConfig.removeSetting(FOLDER_SETTING)

    def loadAlgorithms(self):
        for tool in TOOLS:
            self.addAlgorithm(TraverseAlgorithm(tool))
        for path in sorted(glob.glob(os.path.join(MODELS, "*.model3"))):
            model = QgsProcessingModelAlgorithm()
            if model.fromFile(path):
                model.setSourceFilePath(path)
                self.addAlgorithm(model)

    def defaultRasterFileExtension(self):
        return "tif"

    def supportedOutputRasterLayerExtensions(self):
        return ["tif"]

    def supportsNonFileBasedOutput(self):
        return False
