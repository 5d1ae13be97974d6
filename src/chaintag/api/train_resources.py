"""What ``chaintag train`` reads beside its data: resource files and folders, word embeddings.

``--resources`` names word vectors, cluster tables, Brown paths files and folders of unlabeled text (a
name that is no path here but a folder of the data directory, such as ``unlabeled_en``, is read there);
templates that read word clusters or vectors and name none take the data directory's known resource (GloVe
6B 50d); neural learners given no ``--embeddings`` take the same vectors as word embeddings. Every choice is
said in the training log.
"""

from __future__ import annotations

__all__ = ["add_resources", "known_embeddings", "text_paths"]


def add_resources(opts, log) -> None:
    """Name the resource files (``--resources``, ``--clusters``) in ``opts.features``; when the templates
    read word clusters or vectors and no file is named, the first known resource of the data directory
    (GloVe 6B 50d), said in the log. None found: the extractor's error says what to give."""
    from ..features.spec import resource_paths, uses_resources, with_clusters
    given = list(getattr(opts, "resources", None) or []) + list(opts.clusters or [])
    if given:
        # a name that is no path here but a folder of the data directory (unlabeled_en) is read there
        given = text_paths(given, opts.data_dir)
        if not uses_resources(opts.features):
            log(f"resources: {', '.join(given)} not used: no template reads word clusters or vectors (the "
                "default of this kind of task reads none with these resources: they did not help on dev); "
                "name --features that read them (brownK, kmN, vec) to use them")
            return
        opts.features = with_clusters(opts.features, given)
        log(f"resources: {', '.join(given)} (word vectors are parsed, and clustered by k-means for kmN "
            "templates, once per file content, about a minute for GloVe 6B 50d; a folder of unlabeled text "
            "gets word2vec vectors and clusters, minutes for millions of tokens; all cached for the next "
            "run; the model keeps the values of the words it needs)")
        return
    if not uses_resources(opts.features) or resource_paths(opts.features):
        return
    from ..features.feature_spec import FeatureSpec
    from ..resources.discover import find_known_resource
    from ..resources.wordmaps import is_resource_function
    needs = [n for n in FeatureSpec.parse(opts.features).function_names() if is_resource_function(n)]
    found = find_known_resource(opts.data_dir, needs)
    if found is not None:
        path, about = found
        opts.features = with_clusters(opts.features, [str(path)])
        log(f"resources: the templates read word clusters or vectors and no --resources was given; using "
            f"{path} from the data directory ({about})")


def known_embeddings(opts, learner, log) -> None:
    """Word embeddings of a neural learner: the data directory's word vectors (GloVe 6B 50d, the standard
    input of the neural taggers in the literature) when none are named and the data directory has them,
    said in the log; ``--embeddings none`` trains the embeddings from scratch."""
    if not getattr(type(learner), "learns_representation", False) or not hasattr(learner, "embeddings"):
        return
    if isinstance(learner.embeddings, str) and learner.embeddings.lower() == "none":
        learner.embeddings = None
        return
    if learner.embeddings is not None or getattr(learner, "word_dim", None) is not None:
        return  # named vectors, or an embedding size of the user's (vectors fix their own)
    from ..resources.discover import find_known_resource
    found = find_known_resource(opts.data_dir, needs=("vec",))
    if found is not None:
        learner.embeddings = str(found[0])
        log(f"embeddings: {found[0]} from the data directory ({found[1]}); the model keeps the vectors of all "
            "its words (GloVe 6B 50d: about 80 MB); --embeddings none to learn them from scratch")
    else:
        log("embeddings: learned from scratch (no --embeddings, and no word vectors in the data directory)")


def text_paths(paths, data_dir, in_data_dir: bool = False) -> list[str]:
    """``--autotags`` paths; one that does not exist here but names a folder of the data directory (such
    as ``unlabeled_en``) is read there. A recipe's text (``in_data_dir``) is always the data directory's."""
    import os
    from ..data.datasets import resolve_data_dir
    out = []
    for p in paths:
        there = os.path.join(resolve_data_dir(data_dir), p)
        local = os.path.exists(p) or os.path.isabs(p) or not os.path.exists(there)
        out.append(p if local and not in_data_dir else there)
    return out
