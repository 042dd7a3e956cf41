"""Packaging: the design card's top-level folders install inside the ``commoncause`` package.

``envs/``, ``agents/`` and ``train/`` become ``commoncause.envs`` and so on, so a wheel puts
only ``commoncause`` in site-packages; the shipped partner (``checkpoints/normal/``) and the
configs travel with it. Every other setting is in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = ("envs", "agents", "train")
SHIPPED = ["*.pt", "*.json", "*.png"]
DATA = {"checkpoints.normal": SHIPPED, "checkpoints.dummy_rummy_2p": SHIPPED, "configs": ["*.yaml"]}

packages = ["commoncause", *find_packages(include=["commoncause.*"])]
package_dir = {"commoncause": "commoncause"}
for folder in FOLDERS:
    package_dir[f"commoncause.{folder}"] = folder
    packages.append(f"commoncause.{folder}")
    packages += [f"commoncause.{p}" for p in find_packages(include=[f"{folder}.*"])]
for data_package in DATA:
    name = f"commoncause.{data_package}"
    package_dir[name] = data_package.replace(".", "/")
    packages.append(name)

package_data = {f"commoncause.{p}": patterns for p, patterns in DATA.items()}
package_data.update({p: ["*.md"] for p in packages if p.startswith("commoncause.envs.")})
package_data["commoncause.web"] = ["static/*"]  # the browser page (commoncause serve)

setup(packages=packages, package_dir=package_dir, package_data=package_data)
