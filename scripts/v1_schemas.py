"""HAND-WRITTEN schemas for the SDK v1 (azureml-core) deployment files.

azureml-core is not installed here and has no marshmallow schemas: these two
schemas are written by hand from shared/reference/azureml-facts.md §2.1 and
§2.2 and written to schemas/ by scripts/gen_schemas.py (which only formats
them).  Edit this file, not the JSON.

SDK v1 reads these files with dict.get(): unknown keys are silently ignored,
so nothing here rejects an unknown key (``additionalProperties`` stays true and
``x-amlint-unknown-keys: ignore`` tells the linter it may warn).  A key that
exists but does not apply to the chosen ``computeType`` is listed in that
branch as ``{"x-amlint-ignored": "<why>"}``.  A key whose value the SDK refuses in code
(``InferenceConfig.validate_configuration``: a runtime, conda file, ... beside an
``environment``) is ``{"not": <the values refused>, "x-amlint-refused": {"message", "help"}}``.

``null`` is "not set" for every scalar setting: azureml-core passes
``dict.get(key)`` to ``*.deploy_configuration(...)`` / ``InferenceConfig(...)``,
whose parameters default to ``None`` and are validated only when not ``None``.
Verified by probing ``deploy_config_dict_to_obj`` and ``InferenceConfig`` with
each key set to ``None``: only ``computeType`` (``.lower()`` of ``None``),
``entryScript`` ("need to specify entry_script") and the mappings the loader
reads with ``.get(key, {}).get(...)`` (``containerResourceRequirements``,
``keys``, ``autoScaler``, ``dataCollection``, ``livenessProbeRequirements``:
``None.get`` fails) reject it.  ``baseImageRegistry`` and ``environment`` are
read only when set, so ``null`` is accepted there too.
"""

from __future__ import annotations

from typing import Any, Dict, List

DRAFT = "https://json-schema.org/draft/2020-12/schema"
COMMENT = "HAND-WRITTEN in scripts/v1_schemas.py (written out by scripts/gen_schemas.py) — edit the Python, not this file. Source: azureml-core (SDK v1) behaviour, shared/reference/azureml-facts.md §2."

POS_NUM = {"type": "number", "exclusiveMinimum": 0}
POS_INT = {"type": "integer", "exclusiveMinimum": 0}
INT = {"type": "integer"}
BOOL = {"type": "boolean"}
STR = {"type": "string"}


def d(schema: Dict[str, Any], text: str) -> Dict[str, Any]:
    return dict(schema, description=text)


def nullable(schema: Dict[str, Any]) -> Dict[str, Any]:
    """``schema`` or ``null`` (SDK v1: not set).  Annotations stay as they are."""
    if "x-amlint-ignored" in schema:
        return schema
    if "type" in schema:
        t = schema["type"]
        types = t if isinstance(t, list) else [t]
        return dict(schema, type=types + ["null"] if "null" not in types else types)
    text = schema.get("description")
    inner = {k: v for k, v in schema.items() if k != "description"}
    out: Dict[str, Any] = {"anyOf": [{"type": "null"}, inner]}
    if text:
        out["description"] = text
    return out


def scalars_nullable(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Every scalar property of an object schema made nullable (nested objects stay)."""
    props = {k: (v if v.get("type") == "object" else nullable(v)) for k, v in schema["properties"].items()}
    return dict(schema, properties=props)


def obj(props: Dict[str, Any], text: str) -> Dict[str, Any]:
    return scalars_nullable({"type": "object", "properties": props, "additionalProperties": True,
                             "x-amlint-unknown-keys": "ignore", "description": text})


# every key of deploymentconfig.json, with the compute types that read it
KEYS: Dict[str, Any] = {
    "containerResourceRequirements": (None, None),  # per-type object, below
    "gpuCores": (["aks", "aksendpoint"], d({"type": "integer", "minimum": 0},
                 "GPU cores per replica (top level, not under containerResourceRequirements)."))
    ,
    "location": (["aci"], d(STR, "Azure region of the container instance.")),
    "sslEnabled": (["aci"], d(BOOL, "Enable TLS (default false).")),
    "sslCertificate": (["aci"], d(STR, "PEM certificate file.")),
    "sslKey": (["aci"], d(STR, "PEM key file.")),
    "cname": (["aci"], d(STR, "CNAME for TLS.")),
    "dnsNameLabel": (["aci"], d(STR, "DNS name label.")),
    "vaultBaseUrl": (["aci"], d(STR, "Customer-managed key: Key Vault URL.")),
    "keyName": (["aci"], d(STR, "Customer-managed key: key name.")),
    "keyVersion": (["aci"], d(STR, "Customer-managed key: key version.")),
    "vnetName": (["aci"], d(STR, "Virtual network name.")),
    "subnetName": (["aci"], d(STR, "Subnet name.")),
    "authEnabled": (["aci", "aks", "aksendpoint"], d(BOOL, "Key authentication (ACI default false, AKS default true).")),
    "tokenAuthEnabled": (["aks", "aksendpoint"], d(BOOL, "Token authentication; not together with authEnabled: true.")),
    "appInsightsEnabled": (["aci", "aks", "aksendpoint"], d(BOOL, "Application Insights (default false).")),
    "keys": (["aci", "aks", "aksendpoint"], obj({"primaryKey": STR, "secondaryKey": STR}, "Authentication keys.")),
    "autoScaler": (["aks", "aksendpoint"], obj({
        "autoscaleEnabled": d(BOOL, "Default true when numReplicas is not set."),
        "minReplicas": d(POS_INT, "Default 1; <= maxReplicas."),
        "maxReplicas": d(POS_INT, "Default 10."),
        "refreshPeriodInSeconds": d(POS_INT, "Default 1."),
        "targetUtilization": d({"type": "integer", "minimum": 0, "maximum": 100}, "Percent, default 70."),
    }, "Autoscaler settings (AKS).")),
    "numReplicas": (["aks", "aksendpoint"], d(POS_INT, "Fixed replica count; an error together with autoscaleEnabled: true.")),
    "scoringTimeoutMs": (["aks", "aksendpoint"], d(POS_INT, "Default 60000.")),
    "maxConcurrentRequestsPerContainer": (["aks", "aksendpoint"], d(POS_INT, "Default 1.")),
    "maxQueueWaitMs": (["aks", "aksendpoint"], d(POS_INT, "Default 500.")),
    "dataCollection": (["aks", "aksendpoint"], obj({"storageEnabled": d(BOOL, "Default false.")}, "Model data collection.")),
    "livenessProbeRequirements": (["aks", "aksendpoint"], obj({
        "periodSeconds": d(POS_INT, "Default 10."),
        "initialDelaySeconds": d(POS_INT, "Default 310."),
        "timeoutSeconds": d(POS_INT, "Default 2."),
        "successThreshold": d(POS_INT, "Default 1."),
        "failureThreshold": d(POS_INT, "Default 3."),
    }, "Liveness probe (AKS).")),
    "namespace": (["aks", "aksendpoint"], d({"type": "string", "pattern": "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"},
                  "Kubernetes namespace.")),
    "computeTargetName": (["aks"], d(STR, "Name of the attached AKS compute target.")),
    "versionName": (["aksendpoint"], d(STR, "Endpoint version name.")),
    "trafficPercentile": (["aksendpoint"], d({"type": "number", "minimum": 0, "maximum": 100}, "Traffic percentage for this version.")),
    "port": (["local"], d({"type": "integer", "minimum": 0, "maximum": 65535}, "Local web service port.")),
}

TYPES = {"aci": "ACI", "aks": "AKS", "aksendpoint": "AKSENDPOINT", "local": "local"}


def crr(ct: str) -> Dict[str, Any]:
    if ct == "local":
        return {"x-amlint-ignored": "a local web service has no containerResourceRequirements"}
    props: Dict[str, Any] = {
        "cpu": d(POS_NUM, "CPU cores (default 0.1)."),
        "memoryInGB": d(POS_NUM, "Memory in GB (default 0.5)."),
        "cpuLimit": d(POS_NUM, "CPU limit (>= cpu)."),
        "memoryInGBLimit": d(POS_NUM, "Memory limit in GB (>= memoryInGB)."),
        "gpu": {"x-amlint-ignored": "v1 reads GPUs from the top-level gpuCores key, not from containerResourceRequirements"},
    }
    if ct == "aci":
        for k in ("cpuLimit", "memoryInGBLimit"):
            props[k] = {"x-amlint-ignored": "ACI has no resource limits; only AKS and AKSENDPOINT read it"}
    return obj(props, "Container resources.")


def deployment_config() -> Dict[str, Any]:
    branches: List[Dict[str, Any]] = []
    for ct, label in TYPES.items():
        props: Dict[str, Any] = {"computeType": {"x-amlint-enum": {"values": [ct], "normalize": "lower"}},
                                 "containerResourceRequirements": crr(ct)}
        for key, (types, schema) in KEYS.items():
            if types is None:
                continue
            if ct in types:
                props[key] = schema
            else:
                users = ", ".join(TYPES[t] for t in types)
                props[key] = {"x-amlint-ignored": f"not read for computeType {label} (only for {users})"}
        branch = scalars_nullable({"type": "object", "title": f"computeType {label}", "properties": props,
                                   "required": ["computeType"], "additionalProperties": True,
                                   "x-amlint-unknown-keys": "ignore"})
        # `deploy_config_dict_to_obj` lower-cases computeType: null fails there.
        branch["properties"]["computeType"] = props["computeType"]
        branches.append(branch)
    return {
        "$schema": DRAFT,
        "$comment": COMMENT,
        "title": "SDK v1 deployment configuration (amlint kind v1.deploymentConfig)",
        "description": "deploymentconfig.json for `az ml model deploy --dc` (SDK v1). computeType is matched "
                       "case-insensitively; unknown keys are ignored by v1.",
        "x-amlint-kind": "v1.deploymentConfig",
        "type": "object",
        "required": ["computeType"],
        "x-amlint-discriminator": "computeType",
        "oneOf": branches,
    }


# azureml-core 1.61 ``InferenceConfig.validate_configuration`` (model.py:2181), reached from
# azure-cli-ml ``file_to_inference_config``, which passes every key below *and* the
# deserialised ``environment`` (an ``Environment`` object: always truthy) to ``InferenceConfig``:
#     if self.environment:
#         if self.runtime or self.conda_file or self.extra_docker_file_steps or \
#                 self.enable_gpu or self.cuda_version or self.base_image:
#             raise WebserviceException('Error, unable to provide runtime, ...')
# Python truthiness: a key is "given" unless it is null, false, 0, "", [] or {}
# (``enableGpu: false`` passes).  ``baseImageRegistry`` is not tested.
REFUSED_WITH_ENV_ERROR = ("unable to provide runtime, conda_file, extra_docker_file_steps, enable_gpu, "
                          "cuda_version, or base_image along with an environment object")
TRUTHY = {"anyOf": [{"const": True},
                    {"type": "number", "not": {"const": 0}},
                    {"type": "string", "minLength": 1},
                    {"type": "array", "minItems": 1},
                    {"type": "object", "minProperties": 1}]}
REFUSED_WITH_ENV_HELP = {
    "runtime": "Remove `runtime`: azureml-core builds the image from the `environment` alone.",
    "condaFile": "Remove `condaFile`, or move its packages into the environment's `python.condaDependencies`.",
    "extraDockerfileSteps": "Remove `extraDockerfileSteps`, or give the environment a `docker.baseDockerfile` "
                            "holding those steps (in place of its `docker.baseImage`).",
    "enableGpu": "Remove `enableGpu` (or set it to `false`), and give the environment a CUDA base image "
                 "in `docker.baseImage`.",
    "cudaVersion": "Remove `cudaVersion`, and give the environment a base image with that CUDA version "
                   "in `docker.baseImage`.",
    "baseImage": "Remove `baseImage`, or set it as the environment's `docker.baseImage`.",
}


def refused_with_environment(key: str) -> Dict[str, Any]:
    """``key`` given (truthy) beside an ``environment``: the SDK raises."""
    return {
        "not": TRUTHY,
        "x-amlint-refused": {
            "message": f"cannot be given with `environment`: SDK v1 refuses the configuration "
                       f"(azureml-core: \"{REFUSED_WITH_ENV_ERROR}\")",
            "help": REFUSED_WITH_ENV_HELP[key] + " SDK v1 takes the image from the environment or from these "
                                                 "keys, never both.",
        },
    }


def inference_config() -> Dict[str, Any]:
    props = {
        "entryScript": d(STR, "Scoring script (init()/run())."),
        # `python-slim` is in azureml-core's SUPPORTED_RUNTIMES (as UNDOCUMENTED_RUNTIMES):
        # validate_configuration accepts it, though its error message does not list it.
        "runtime": d({"x-amlint-enum": {"values": ["python", "spark-py", "python-slim"], "normalize": "lower"}},
                     "Runtime."),
        "condaFile": d(STR, "Conda environment file."),
        "extraDockerfileSteps": d(STR, "File with extra Dockerfile steps."),
        "extraDockerFileSteps": {"x-amlint-ignored": "v1 reads extraDockerfileSteps (lower-case f); the docs table's spelling is not read"},
        "sourceDirectory": d(STR, "Folder with the files to package."),
        "enableGpu": d(BOOL, "Default false."),
        "baseImage": d(STR, "Custom base image."),
        "baseImageRegistry": dict(obj({"address": STR, "username": STR, "password": STR}, "Registry of the base image."),
                                  type=["object", "null"]),
        "cudaVersion": d({"x-amlint-enum": {"values": ["9.0", "9.1", "10.0"], "normalize": "exact"}}, "CUDA version (9.1 default when enableGpu)."),
        "description": d(STR, "Image description."),
        "environment": d({"type": ["object", "null"]}, "An Environment (object); SDK v1 refuses it together with a runtime, condaFile, extraDockerfileSteps, enableGpu, baseImage or cudaVersion (other than null, false or empty)."),
    }
    props = {k: (v if k == "entryScript" or "object" in (v.get("type") or []) else nullable(v)) for k, v in props.items()}
    then_props = {k: refused_with_environment(k) for k in REFUSED_WITH_ENV_HELP}
    return {
        "$schema": DRAFT,
        "$comment": COMMENT,
        "title": "SDK v1 inference configuration (amlint kind v1.inferenceConfig)",
        "description": "inferenceconfig.json for `az ml model deploy --ic` (SDK v1). Unknown keys are ignored by v1.",
        "x-amlint-kind": "v1.inferenceConfig",
        "type": "object",
        "properties": props,
        "required": ["entryScript"],
        "additionalProperties": True,
        "x-amlint-unknown-keys": "ignore",
        # ``environment: null`` is not given: the CLI then takes ``--environment-name`` or nothing.
        "if": {"required": ["environment"], "properties": {"environment": {"type": "object"}}},
        "then": {"properties": then_props},
    }


def schemas() -> Dict[str, Dict[str, Any]]:
    return {
        "v1.deploymentConfig.schema.json": deployment_config(),
        "v1.inferenceConfig.schema.json": inference_config(),
    }
