"""The bibliography of :mod:`xdiv.formats.tables`: one place for every entry its methods
paragraph and :func:`xdiv.bibtex` cite, and the citations of the measure registry's
``reference`` strings that map to them.

Only facts: authors, title, venue, year, and volume, number and pages where certain.
``cite`` is the short form the methods paragraph prints (Author, venue year).
"""

from __future__ import annotations

__all__ = ["BIBLIOGRAPHY", "MEASURE_REFERENCES"]

BIBLIOGRAPHY: dict[str, dict[str, str]] = {
    # tests
    "fisher1935": {
        "type": "book", "author": "Fisher, Ronald A.", "title": "The Design of Experiments",
        "publisher": "Oliver and Boyd", "address": "Edinburgh", "year": "1935",
        "cite": "Fisher, The Design of Experiments 1935"},
    "smucker2007": {
        "type": "inproceedings",
        "author": "Smucker, Mark D. and Allan, James and Carterette, Ben",
        "title": "A Comparison of Statistical Significance Tests for Information "
                 "Retrieval Evaluation",
        "booktitle": "Proceedings of the 16th ACM Conference on Information and "
                     "Knowledge Management ({CIKM})",
        "pages": "623--632", "year": "2007",
        "cite": "Smucker, Allan & Carterette, CIKM 2007"},
    "student1908": {
        "type": "article", "author": "Student", "title": "The Probable Error of a Mean",
        "journal": "Biometrika", "volume": "6", "number": "1", "pages": "1--25",
        "year": "1908", "cite": "Student, Biometrika 1908"},
    "wilcoxon1945": {
        "type": "article", "author": "Wilcoxon, Frank",
        "title": "Individual Comparisons by Ranking Methods",
        "journal": "Biometrics Bulletin", "volume": "1", "number": "6", "pages": "80--83",
        "year": "1945", "cite": "Wilcoxon, Biometrics Bulletin 1945"},
    "efron1993": {
        "type": "book", "author": "Efron, Bradley and Tibshirani, Robert J.",
        "title": "An Introduction to the Bootstrap", "publisher": "Chapman \\& Hall",
        "address": "New York", "year": "1993",
        "cite": "Efron & Tibshirani, An Introduction to the Bootstrap 1993"},
    "efron1987": {
        "type": "article", "author": "Efron, Bradley",
        "title": "Better Bootstrap Confidence Intervals",
        "journal": "Journal of the American Statistical Association", "volume": "82",
        "number": "397", "pages": "171--185", "year": "1987",
        "cite": "Efron, Journal of the American Statistical Association 1987"},
    "sakai2006": {
        "type": "inproceedings", "author": "Sakai, Tetsuya",
        "title": "Evaluating Evaluation Metrics Based on the Bootstrap",
        "booktitle": "Proceedings of the 29th Annual International {ACM} {SIGIR} "
                     "Conference on Research and Development in Information Retrieval",
        "pages": "525--532", "year": "2006", "cite": "Sakai, SIGIR 2006"},
    "dixon1946": {
        "type": "article", "author": "Dixon, W. J. and Mood, A. M.",
        "title": "The Statistical Sign Test",
        "journal": "Journal of the American Statistical Association", "volume": "41",
        "number": "236", "pages": "557--566", "year": "1946",
        "cite": "Dixon & Mood, Journal of the American Statistical Association 1946"},
    # corrections
    "dunn1961": {
        "type": "article", "author": "Dunn, Olive Jean",
        "title": "Multiple Comparisons among Means",
        "journal": "Journal of the American Statistical Association", "volume": "56",
        "number": "293", "pages": "52--64", "year": "1961",
        "cite": "Dunn, Journal of the American Statistical Association 1961"},
    "holm1979": {
        "type": "article", "author": "Holm, Sture",
        "title": "A Simple Sequentially Rejective Multiple Test Procedure",
        "journal": "Scandinavian Journal of Statistics", "volume": "6", "number": "2",
        "pages": "65--70", "year": "1979",
        "cite": "Holm, Scandinavian Journal of Statistics 1979"},
    "benjamini1995": {
        "type": "article", "author": "Benjamini, Yoav and Hochberg, Yosef",
        "title": "Controlling the False Discovery Rate: A Practical and Powerful "
                 "Approach to Multiple Testing",
        "journal": "Journal of the Royal Statistical Society: Series B (Methodological)",
        "volume": "57", "number": "1", "pages": "289--300", "year": "1995",
        "cite": "Benjamini & Hochberg, Journal of the Royal Statistical Society B 1995"},
    "benjamini2001": {
        "type": "article", "author": "Benjamini, Yoav and Yekutieli, Daniel",
        "title": "The Control of the False Discovery Rate in Multiple Testing under "
                 "Dependency",
        "journal": "The Annals of Statistics", "volume": "29", "number": "4",
        "pages": "1165--1188", "year": "2001",
        "cite": "Benjamini & Yekutieli, The Annals of Statistics 2001"},
    "westfall1993": {
        "type": "book", "author": "Westfall, Peter H. and Young, S. Stanley",
        "title": "Resampling-Based Multiple Testing: Examples and Methods for "
                 "$p$-Value Adjustment",
        "publisher": "Wiley", "address": "New York", "year": "1993",
        "cite": "Westfall & Young, Resampling-Based Multiple Testing 1993"},
    "boytsov2013": {
        "type": "inproceedings",
        "author": "Boytsov, Leonid and Belova, Anna and Westfall, Peter",
        "title": "Deciding on an Adjustment for Multiplicity in {IR} Experiments",
        "booktitle": "Proceedings of the 36th International {ACM} {SIGIR} Conference on "
                     "Research and Development in Information Retrieval",
        "year": "2013", "cite": "Boytsov, Belova & Westfall, SIGIR 2013"},
    "carterette2012": {
        "type": "article", "author": "Carterette, Benjamin A.",
        "title": "Multiple Testing in Statistical Analysis of Systems-Based Information "
                 "Retrieval Experiments",
        "journal": "{ACM} Transactions on Information Systems", "volume": "30",
        "number": "1", "year": "2012", "cite": "Carterette, TOIS 2012"},
    # measures
    "clarke2008": {
        "type": "inproceedings",
        "author": "Clarke, Charles L. A. and Kolla, Maheedhar and Cormack, Gordon V. and "
                  "Vechtomova, Olga and Ashkan, Azin and B{\\\"u}ttcher, Stefan and "
                  "MacKinnon, Ian",
        "title": "Novelty and Diversity in Information Retrieval Evaluation",
        "booktitle": "Proceedings of the 31st Annual International {ACM} {SIGIR} "
                     "Conference on Research and Development in Information Retrieval",
        "pages": "659--666", "year": "2008", "cite": "Clarke et al., SIGIR 2008"},
    "clarke2011": {
        "type": "inproceedings",
        "author": "Clarke, Charles L. A. and Craswell, Nick and Soboroff, Ian and "
                  "Ashkan, Azin",
        "title": "A Comparative Analysis of Cascade Measures for Novelty and Diversity",
        "booktitle": "Proceedings of the Fourth {ACM} International Conference on Web "
                     "Search and Data Mining ({WSDM})",
        "year": "2011", "cite": "Clarke, Craswell, Soboroff & Ashkan, WSDM 2011"},
    "clarke2009": {
        "type": "inproceedings",
        "author": "Clarke, Charles L. A. and Kolla, Maheedhar and Vechtomova, Olga",
        "title": "An Effectiveness Measure for Ambiguous and Underspecified Queries",
        "booktitle": "Advances in Information Retrieval Theory ({ICTIR})",
        "year": "2009", "cite": "Clarke, Kolla & Vechtomova, ICTIR 2009"},
    "agrawal2009": {
        "type": "inproceedings",
        "author": "Agrawal, Rakesh and Gollapudi, Sreenivas and Halverson, Alan and "
                  "Ieong, Samuel",
        "title": "Diversifying Search Results",
        "booktitle": "Proceedings of the Second {ACM} International Conference on Web "
                     "Search and Data Mining ({WSDM})",
        "pages": "5--14", "year": "2009", "cite": "Agrawal et al., WSDM 2009"},
    "sakai2011": {
        "type": "inproceedings", "author": "Sakai, Tetsuya and Song, Ruihua",
        "title": "Evaluating Diversified Search Results Using Per-Intent Graded Relevance",
        "booktitle": "Proceedings of the 34th International {ACM} {SIGIR} Conference on "
                     "Research and Development in Information Retrieval",
        "pages": "1043--1052", "year": "2011", "cite": "Sakai & Song, SIGIR 2011"},
    "chapelle2009": {
        "type": "inproceedings",
        "author": "Chapelle, Olivier and Metzler, Donald and Zhang, Ya and "
                  "Grinspan, Pierre",
        "title": "Expected Reciprocal Rank for Graded Relevance",
        "booktitle": "Proceedings of the 18th {ACM} Conference on Information and "
                     "Knowledge Management ({CIKM})",
        "pages": "621--630", "year": "2009", "cite": "Chapelle et al., CIKM 2009"},
    "jarvelin2002": {
        "type": "article",
        "author": "J{\\\"a}rvelin, Kalervo and Kek{\\\"a}l{\\\"a}inen, Jaana",
        "title": "Cumulated Gain-Based Evaluation of {IR} Techniques",
        "journal": "{ACM} Transactions on Information Systems", "volume": "20",
        "number": "4", "pages": "422--446", "year": "2002",
        "cite": "Järvelin & Kekäläinen, TOIS 2002"},
    "burges2005": {
        "type": "inproceedings",
        "author": "Burges, Chris and Shaked, Tal and Renshaw, Erin and Lazier, Ari and "
                  "Deeds, Matt and Hamilton, Nicole and Hullender, Greg",
        "title": "Learning to Rank Using Gradient Descent",
        "booktitle": "Proceedings of the 22nd International Conference on Machine "
                     "Learning ({ICML})",
        "pages": "89--96", "year": "2005", "cite": "Burges et al., ICML 2005"},
    "zhai2003": {
        "type": "inproceedings",
        "author": "Zhai, ChengXiang and Cohen, William W. and Lafferty, John",
        "title": "Beyond Independent Relevance: Methods and Evaluation Metrics for "
                 "Subtopic Retrieval",
        "booktitle": "Proceedings of the 26th Annual International {ACM} {SIGIR} "
                     "Conference on Research and Development in Information Retrieval",
        "pages": "10--17", "year": "2003", "cite": "Zhai, Cohen & Lafferty, SIGIR 2003"},
    "sakai2013dou": {
        "type": "inproceedings", "author": "Sakai, Tetsuya and Dou, Zhicheng",
        "title": "Summaries, Ranked Retrieval and Sessions: A Unified Framework for "
                 "Information Access Evaluation",
        "booktitle": "Proceedings of the 36th International {ACM} {SIGIR} Conference on "
                     "Research and Development in Information Retrieval",
        "year": "2013", "cite": "Sakai & Dou, SIGIR 2013"},
    "sakai2013airs": {
        "type": "inproceedings", "author": "Sakai, Tetsuya",
        "title": "How Intuitive Are Diversified Search Metrics? Concordance Test Results "
                 "for the Diversity {U}-Measures",
        "booktitle": "Information Retrieval Technology ({AIRS})",
        "year": "2013", "cite": "Sakai, AIRS 2013"},
    "sakai2012www": {
        "type": "inproceedings", "author": "Sakai, Tetsuya",
        "title": "Evaluation with Informational and Navigational Intents",
        "booktitle": "Proceedings of the 21st International Conference on World Wide Web "
                     "({WWW})",
        "year": "2012", "cite": "Sakai, WWW 2012"},
    "robertson2010": {
        "type": "inproceedings",
        "author": "Robertson, Stephen E. and Kanoulas, Evangelos and Yilmaz, Emine",
        "title": "Extending Average Precision to Graded Relevance Judgments",
        "booktitle": "Proceedings of the 33rd International {ACM} {SIGIR} Conference on "
                     "Research and Development in Information Retrieval",
        "year": "2010", "cite": "Robertson, Kanoulas & Yilmaz, SIGIR 2010"},
    "moffat2008": {
        "type": "article", "author": "Moffat, Alistair and Zobel, Justin",
        "title": "Rank-Biased Precision for Measurement of Retrieval Effectiveness",
        "journal": "{ACM} Transactions on Information Systems", "volume": "27",
        "number": "1", "year": "2008", "cite": "Moffat & Zobel, TOIS 2008"},
    "buckley2004": {
        "type": "inproceedings", "author": "Buckley, Chris and Voorhees, Ellen M.",
        "title": "Retrieval Evaluation with Incomplete Information",
        "booktitle": "Proceedings of the 27th Annual International {ACM} {SIGIR} "
                     "Conference on Research and Development in Information Retrieval",
        "pages": "25--32", "year": "2004", "cite": "Buckley & Voorhees, SIGIR 2004"},
    "buckley2005": {
        "type": "incollection", "author": "Buckley, Chris and Voorhees, Ellen M.",
        "title": "Retrieval System Evaluation",
        "booktitle": "{TREC}: Experiment and Evaluation in Information Retrieval",
        "editor": "Voorhees, Ellen M. and Harman, Donna K.", "publisher": "{MIT} Press",
        "year": "2005", "cite": "Buckley & Voorhees, TREC: Experiment and Evaluation "
                                "in Information Retrieval 2005"},
    "voorhees1999": {
        "type": "inproceedings", "author": "Voorhees, Ellen M.",
        "title": "The {TREC-8} Question Answering Track Report",
        "booktitle": "Proceedings of the Eighth Text REtrieval Conference ({TREC-8})",
        "year": "1999", "cite": "Voorhees, TREC-8 1999"},
    "macavaney2022": {
        "type": "inproceedings",
        "author": "MacAvaney, Sean and Macdonald, Craig and Ounis, Iadh",
        "title": "Streamlining Evaluation with ir-measures",
        "booktitle": "Advances in Information Retrieval ({ECIR})",
        "year": "2022", "cite": "MacAvaney, Macdonald & Ounis, ECIR 2022"},
    "wang2018": {
        "type": "article",
        "author": "Wang, Xiaojie and Wen, Ji-Rong and Dou, Zhicheng and Sakai, Tetsuya "
                  "and Zhang, Rui",
        "title": "Search Result Diversity Evaluation Based on Intent Hierarchies",
        "journal": "{IEEE} Transactions on Knowledge and Data Engineering",
        "volume": "30", "number": "1", "pages": "156--169", "year": "2018",
        "cite": "Wang, Wen, Dou, Sakai & Zhang, IEEE TKDE 2018"},
}
"""Every BibTeX entry :func:`bibtex` writes, by key: the entry type, the fields (in
BibTeX syntax) and ``cite``, the short form the methods paragraph prints."""

MEASURE_REFERENCES: dict[str, str] = {
    "Clarke et al., SIGIR 2008": "clarke2008",
    "Clarke, Craswell, Soboroff & Ashkan, WSDM 2011": "clarke2011",
    "Clarke, Kolla & Vechtomova, ICTIR 2009": "clarke2009",
    "Agrawal et al., WSDM 2009": "agrawal2009",
    "Sakai & Song, SIGIR 2011": "sakai2011",
    "Chapelle et al., CIKM 2009": "chapelle2009",
    "Järvelin & Kekäläinen, TOIS 2002": "jarvelin2002",
    "Burges et al., ICML 2005": "burges2005",
    "Zhai, Cohen & Lafferty, SIGIR 2003": "zhai2003",
    "Sakai & Dou, SIGIR 2013": "sakai2013dou",
    "Sakai, AIRS 2013": "sakai2013airs",
    "Sakai, WWW 2012": "sakai2012www",
    "Robertson, Kanoulas & Yilmaz, SIGIR 2010": "robertson2010",
    "Moffat & Zobel, TOIS 2008": "moffat2008",
    "Buckley & Voorhees, SIGIR 2004": "buckley2004",
    "Buckley & Voorhees, 'Retrieval System Evaluation'": "buckley2005",
    "Voorhees, TREC-8 QA track 1999": "voorhees1999",
    "MacAvaney, Macdonald & Ounis, ECIR 2022": "macavaney2022",
    "Wang, Wen, Dou, Sakai & Zhang, IEEE TKDE 2018": "wang2018",
}
"""The citations found in the registry's ``reference`` strings (each a substring of
them), mapped to their :data:`BIBLIOGRAPHY` keys. Not mapped, for want of certain
bibliographic data: ``Sakai, EVIA 2007 / NTCIR``, ``Sakai, IPSJ TOD 2007``,
``Sakai, JIP 2013`` and ``Cleverdon, Cranfield tests``."""
