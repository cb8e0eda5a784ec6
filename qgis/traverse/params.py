"""Parameter kinds: each turns one command-line option of a trv-* tool into
a QGIS Processing parameter, and the parameter's value back into the option.

The rule for every kind: an option is passed when the user gave it a value
that differs from the tool's own default (flags: when checked), so that the
default run is the tool's default command line. Options are emitted in the
order of the tool's --help (the order of its table in tools.py), which is
what the TRV_ARGS metadata of the outputs records.
"""
import os

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsProcessing,
    QgsProcessingException,
    QgsProcessingOutputFolder,
    QgsProcessingOutputRasterLayer,
    QgsProcessingOutputVectorLayer,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterCrs,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterExtent,
    QgsProcessingParameterFile,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterMultipleLayers,
    QgsProcessingParameterNumber,
    QgsProcessingParameterPoint,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
)


def number(v):
    """A number as the command line takes it: the shortest form that reads
    back to the same double, without a trailing '.0'."""
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") else s


def crs_arg(crs):
    return crs.authid() or crs.toWkt(QgsCoordinateReferenceSystem.WKT_PREFERRED)


def file_of(layer, what):
    """The file a layer reads: the tools open files, not QGIS data sources."""
    path = layer.source().split("|")[0]
    if not os.path.isfile(path):
        raise QgsProcessingException("%s: '%s' is not a file (the traverse tools read files)" % (what, layer.source()))
    return path


class Param:
    """One option. flag None: the positional argument (parameter INPUT);
    '-o': parameter OUTPUT; else the long option's name in capitals."""

    def __init__(self, flag, label, default=None, required=False, advanced=False, name=None):
        self.flag = flag
        self.name = name or ("INPUT" if flag is None else "OUTPUT" if flag == "-o" else
                             flag.lstrip("-").upper().replace("-", "_"))
        self.label = label
        self.default = default
        self.required = required
        self.advanced = advanced

    @property
    def flags(self):
        """The command-line options this parameter maps to."""
        return (self.flag,) if self.flag else ()

    def definition(self):
        """The parameter: optional unless the tool needs it (QGIS shows the
        default; left at it, the option is not passed)."""
        d = self.make()
        if not self.required:
            d.setFlags(d.flags() | QgsProcessingParameterDefinition.FlagOptional)
        if self.advanced:
            d.setFlags(d.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        return d

    def given(self, parameters):
        v = parameters.get(self.name)
        return v is not None and v != "" and v != []

    def opt(self, *values):
        return ([self.flag] if self.flag else []) + list(values)

    def args(self, alg, parameters, context):
        return []

    def out_dirs(self, alg, parameters, context):
        """Directories the tool writes into for this parameter."""
        return []

    def result(self, alg, parameters, context):
        """(output name, value) for the results, or None."""
        return None


class Flag(Param):
    def __init__(self, flag, label, **kw):
        super().__init__(flag, label, False, **kw)

    def make(self):
        return QgsProcessingParameterBoolean(self.name, self.label, False)

    def args(self, alg, parameters, context):
        return self.opt() if self.given(parameters) and alg.parameterAsBoolean(parameters, self.name, context) else []


class Number(Param):
    def __init__(self, flag, label, default=None, integer=False, minimum=None, maximum=None, **kw):
        super().__init__(flag, label, default, **kw)
        self.integer, self.minimum, self.maximum = integer, minimum, maximum

    def make(self):
        t = QgsProcessingParameterNumber.Integer if self.integer else QgsProcessingParameterNumber.Double
        d = QgsProcessingParameterNumber(self.name, self.label, t, self.default)
        if self.minimum is not None:
            d.setMinimum(self.minimum)
        if self.maximum is not None:
            d.setMaximum(self.maximum)
        return d

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        if self.integer:
            v = alg.parameterAsInt(parameters, self.name, context)
            return [] if v == self.default else self.opt(str(v))
        v = alg.parameterAsDouble(parameters, self.name, context)
        return [] if v == self.default else self.opt(number(v))


class Choice(Param):
    """choices: the option's values, or (value, label) pairs."""

    def __init__(self, flag, label, choices, default=None, **kw):
        super().__init__(flag, label, default, **kw)
        pairs = [c if isinstance(c, tuple) else (c, c) for c in choices]
        self.values = [v for v, _ in pairs]
        self.labels = [lab for _, lab in pairs]

    def make(self):
        default = None if self.default is None else self.values.index(self.default)
        return QgsProcessingParameterEnum(self.name, self.label, self.labels, False, default)

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        v = self.values[alg.parameterAsEnum(parameters, self.name, context)]
        return [] if v == self.default else self.opt(v)


class Text(Param):
    def make(self):
        return QgsProcessingParameterString(self.name, self.label, self.default)

    def args(self, alg, parameters, context):
        v = alg.parameterAsString(parameters, self.name, context) if self.given(parameters) else ""
        return self.opt(v) if v and v != self.default else []


class Crs(Param):
    def make(self):
        return QgsProcessingParameterCrs(self.name, self.label, self.default)

    def crs(self, alg, parameters, context):
        """The chosen CRS, or None when not given."""
        if not self.given(parameters):
            return None
        c = alg.parameterAsCrs(parameters, self.name, context)
        return c if c.isValid() else None

    def args(self, alg, parameters, context):
        c = self.crs(alg, parameters, context)
        if c is None:
            return []
        v = crs_arg(c)
        return [] if v == self.default else self.opt(v)


class File(Param):
    """An input file, or with folder=True a directory; writes=True: the tool
    writes its outputs into that directory (the terrain folder)."""

    def __init__(self, flag, label, filter="", folder=False, writes=False, **kw):
        super().__init__(flag, label, **kw)
        self.filter, self.folder, self.writes = filter, folder, writes

    def make(self):
        behaviour = QgsProcessingParameterFile.Folder if self.folder else QgsProcessingParameterFile.File
        return QgsProcessingParameterFile(self.name, self.label, behaviour, "", None, False, self.filter)

    def path(self, alg, parameters, context):
        return alg.parameterAsFile(parameters, self.name, context) if self.given(parameters) else ""

    def args(self, alg, parameters, context):
        p = self.path(alg, parameters, context)
        return self.opt(p) if p else []

    def out_dirs(self, alg, parameters, context):
        return [self.path(alg, parameters, context)] if self.writes else []


class Raster(Param):
    def make(self):
        return QgsProcessingParameterRasterLayer(self.name, self.label)

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        layer = alg.parameterAsRasterLayer(parameters, self.name, context)
        if layer is None:
            raise QgsProcessingException("%s: cannot load '%s'" % (self.label, parameters[self.name]))
        return self.opt(file_of(layer, self.label))


class Vectors(Param):
    """A repeatable option (--overlay FILE ...): one option per layer."""

    def make(self):
        return QgsProcessingParameterMultipleLayers(self.name, self.label, QgsProcessing.TypeVectorAnyGeometry)

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        out = []
        for layer in alg.parameterAsLayerList(parameters, self.name, context):
            out += self.opt(file_of(layer, self.label))
        return out


class Point(Param):
    """X,Y in the CRS of the parameter named srs (a point given with another
    CRS, as the map canvas gives it, is transformed into that one)."""

    def __init__(self, flag, label, srs, **kw):
        super().__init__(flag, label, **kw)
        self.srs = srs

    def make(self):
        return QgsProcessingParameterPoint(self.name, self.label)

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        crs = alg.srs_param(self.srs).crs(alg, parameters, context) or QgsCoordinateReferenceSystem("EPSG:4326")
        p = alg.parameterAsPoint(parameters, self.name, context, crs)
        return self.opt("%s,%s" % (number(p.x()), number(p.y())))


class Extent(Param):
    """xmin ymin xmax ymax (four arguments, in that order: QGIS writes
    xmin,xmax,ymin,ymax). srs_flag: the option that takes the extent's CRS
    (trv-render --te_srs); target: the CRS parameter the numbers are
    transformed into when both are set (trv-krige --t_srs)."""

    def __init__(self, flag, label, srs_flag=None, target=None, **kw):
        super().__init__(flag, label, **kw)
        self.srs_flag, self.target = srs_flag, target

    @property
    def flags(self):
        return (self.flag,) + ((self.srs_flag,) if self.srs_flag else ())

    def make(self):
        return QgsProcessingParameterExtent(self.name, self.label)

    def args(self, alg, parameters, context):
        if not self.given(parameters):
            return []
        crs = alg.parameterAsExtentCrs(parameters, self.name, context)
        target = alg.srs_param(self.target).crs(alg, parameters, context) if self.target else None
        e = alg.parameterAsExtent(parameters, self.name, context, target) if target else \
            alg.parameterAsExtent(parameters, self.name, context)
        out = self.opt(*(number(v) for v in (e.xMinimum(), e.yMinimum(), e.xMaximum(), e.yMaximum())))
        if self.srs_flag and crs.isValid():
            out += [self.srs_flag, crs_arg(crs)]
        return out


class Output(Param):
    """A file or folder the tool writes; optional ones are skipped by default."""

    def path(self, alg, parameters, context):
        return alg.parameterAsString(parameters, self.name, context) if self.given(parameters) else ""

    def args(self, alg, parameters, context):
        p = self.path(alg, parameters, context)
        return self.opt(p) if p else []

    def out_dirs(self, alg, parameters, context):
        p = self.path(alg, parameters, context)
        return [os.path.dirname(os.path.abspath(p))] if p else []

    def result(self, alg, parameters, context):
        p = self.path(alg, parameters, context)
        return (self.name, p) if p else None


class RasterOut(Output):
    def make(self):
        return QgsProcessingParameterRasterDestination(self.name, self.label, None, False, self.required)

    def path(self, alg, parameters, context):
        return alg.parameterAsOutputLayer(parameters, self.name, context) if self.given(parameters) else ""


class FileOut(Output):
    def __init__(self, flag, label, filter, **kw):
        super().__init__(flag, label, **kw)
        self.filter = filter

    def make(self):
        return QgsProcessingParameterFileDestination(self.name, self.label, self.filter, None, False, self.required)

    def path(self, alg, parameters, context):
        return alg.parameterAsFileOutput(parameters, self.name, context) if self.given(parameters) else ""


class FolderOut(Output):
    """A folder the tool creates (with its parents) if missing."""

    def make(self):
        return QgsProcessingParameterFolderDestination(self.name, self.label, None, not self.required, self.required)

    def out_dirs(self, alg, parameters, context):
        p = self.path(alg, parameters, context)
        return [os.path.abspath(p)] if p else []


class Stdout(FileOut):
    """Not an option: what the tool prints (its report) saved as a text file,
    as `make demo` keeps krige.txt, speed.txt, ... for trv-report."""

    def __init__(self):
        super().__init__(None, "Printed report (the tool's standard output, as text)", "Text files (*.txt)",
                         name="STDOUT")

    @property
    def flags(self):
        return ()

    def args(self, alg, parameters, context):
        return []


# ---- outputs that the tools write under fixed names ----------------------

class Layer:
    """A layer a run leaves: the file of parameter `base` itself (file None),
    or `file` (a glob pattern) in the folder `base`; `layer`: a GeoPackage
    layer name. `output`: declared as an output of that name (for models);
    `name`: the layer's name in the project (default: the layer's or the
    file's; for a pattern, each file's)."""

    def __init__(self, base, file=None, layer=None, output=None, name=None, vector=False):
        self.base, self.file, self.layer, self.output = base, file, layer, output
        self.name = name or layer or (os.path.splitext(file)[0] if file else None)
        self.vector = vector or layer is not None or (file or "").endswith((".geojson", ".gpkg"))

    def layer_name(self, path):
        return os.path.splitext(os.path.basename(path))[0] if "*" in (self.file or "") else self.name

    def definition(self):
        cls = QgsProcessingOutputVectorLayer if self.vector else QgsProcessingOutputRasterLayer
        return cls(self.output, self.name)


class Folder:
    """The folder a tool wrote into (the terrain folder given as input), as an
    output named OUTPUT, so that a model can chain the stages on it."""

    def __init__(self, base, label):
        self.base, self.output, self.label = base, "OUTPUT", label

    def definition(self):
        return QgsProcessingOutputFolder(self.output, self.label)
